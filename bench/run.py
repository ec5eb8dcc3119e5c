"""Run every bench/bench_*.py, print a table and write bench/results.json.

Each module defines ``run() -> {name: {"value": float, "unit": str, "target": float | None}}``.
results.json keeps {"name": {"value": number, "unit": "ms"}} (plus the target where one is set, and
"min" for a value that must stay within a range).
"""

from __future__ import annotations

import importlib.util
import json
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))


def main(argv: list[str]) -> int:
    only = set(argv)
    results: dict[str, dict] = {}
    for path in sorted(HERE.glob("bench_*.py")):
        if only and path.stem not in only and path.stem.removeprefix("bench_") not in only:
            continue
        spec = importlib.util.spec_from_file_location(path.stem, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        t0 = time.perf_counter()
        print(f"running {path.name} ...", file=sys.stderr, flush=True)
        results.update(module.run())
        print(f"  {path.name} took {time.perf_counter() - t0:.1f} s", file=sys.stderr, flush=True)

    width = max((len(k) for k in results), default=10)
    print(f"{'benchmark'.ljust(width)}  {'value':>10}  unit  {'target':>8}  status")
    failed = 0
    for name, r in results.items():
        target, low = r.get("target"), r.get("min")
        ok = (target is None or r["value"] <= target) and (low is None or r["value"] >= low)
        failed += not ok
        status = "-" if target is None else ("met" if ok else "MISSED")
        tgt = "" if target is None else (f"{low:g}-{target:g}" if low is not None else f"<= {target:g}")
        print(f"{name.ljust(width)}  {r['value']:>10.1f}  {r['unit']:<4}  {tgt:>8}  {status}")
    out = {
        k: {kk: v for kk, v in r.items() if kk in ("value", "unit", "target", "min") and v is not None}
        for k, r in results.items()
    }
    path = HERE / "results.json"
    if only and path.is_file():  # a subset run keeps the entries it did not run
        out = {**json.loads(path.read_text()), **out}
    path.write_text(json.dumps(out, indent=2) + "\n")
    print(f"\nwrote {HERE / 'results.json'}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
