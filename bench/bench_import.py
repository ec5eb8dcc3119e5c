"""Platform import of ink: a generated session of 36 strokes whose ink PNGs are 3672 x 4752.

The session is written as the platform exports it: a Guide log and a Follower log (JSONL, the
platform's row fields), and after every Follower stroke the whole ink layer as
``files/<action_id>_map_image.png``: thin antialiased black strokes on a transparent image, each
stroke added to the ones before. The import (``import_source``, nothing written) runs in a fresh
process: ``import_ink_ms_per_stroke_3672x4752`` is its time divided by the number of strokes
(target 1,000 ms), ``import_ink_peak_mb_36_strokes`` the growth of the process's maximum resident
set size during the import, over the process with the importer's modules loaded (target 500 MB).
"""

from __future__ import annotations

import json
import math
import random
import subprocess
import sys
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

N_STROKES = 36
SIZE = (3672, 4752)  # width x height of the ink PNGs
LINE_PX = 20  # the brush's line width in PNG pixels
SUPERSAMPLE = 4  # strokes are drawn this many times larger and reduced, for antialiased edges

_CHILD = r"""
import json, sys, time
sys.path.insert(0, sys.argv[2])
from bench.peak import peak_mb
import numpy, PIL.Image, PIL.PngImagePlugin
import corpus.importers.platform
from corpus.importers import import_source
base = peak_mb()  # the process with the importer loaded
t0 = time.perf_counter()
result = import_source("platform", sys.argv[1])
ms = (time.perf_counter() - t0) * 1000
peak = peak_mb()
assert result.report.ok, result.report.format()
(s,) = result.sessions
n_draw = sum(a.type == "draw" for a in s.actions)
print(json.dumps({"ms": ms, "peak_mb": peak - base, "base_mb": base, "n_draw": n_draw}))
"""


def _row(pid: str, name: str, sid: str, when: datetime, elapsed: float, kind: str, content: str, **extra) -> dict:
    """One log row in the platform's shape."""
    action_id = extra.pop("action_id", f"{pid[:8]}-{when.timestamp():.3f}")
    row = {
        "action_id": action_id,
        "timestamp": when.strftime("%Y-%m-%dT%H:%M:%S.%fZ"),
        "session_id": sid,
        "participant_id": pid,
        "session_name": "bench",
        "participant_name": name,
        "is_human": True,
        "action_type": kind,
        "action_content": content,
        "result": "success",
        "metadata": extra.pop("metadata", {}),
        "page": "map_task" if kind.startswith("map_") else "social_panel",
        "experiment_type": "maptask",
        "session_elapsed_seconds": int(elapsed),
    }
    row.update(extra)
    return row


def _stroke_points(
    rng: random.Random, start: tuple[float, float], width: int, height: int
) -> list[tuple[float, float]]:
    """A wandering line of a few hundred pixels from ``start``, kept inside the image."""
    x, y = start
    heading = rng.uniform(0, 6.283)
    points = [(x, y)]
    for _ in range(rng.randint(6, 12)):
        heading += rng.uniform(-0.6, 0.6)
        step = rng.uniform(40, 90)
        x = min(max(x + step * math.cos(heading), 60), width - 60)
        y = min(max(y + step * math.sin(heading), 60), height - 60)
        points.append((x, y))
    return points


def make_session(folder: Path, n_strokes: int = N_STROKES, size: tuple[int, int] = SIZE, seed: int = 7) -> Path:
    """Write a platform export of one session with ``n_strokes`` ink strokes into ``folder``."""
    from PIL import Image, ImageChops, ImageDraw

    rng = random.Random(seed)
    width, height = size
    files = folder / "files"
    files.mkdir(parents=True, exist_ok=True)
    sid = "5e55104b-be4c-4a11-9a5e-000000000036"
    guide, follower = "6d1de000-0000-4000-8000-00000000a001", "f0110e00-0000-4000-8000-00000000b002"
    t0 = datetime(2026, 4, 10, 21, 44, 0, tzinfo=UTC)
    guide_rows, follower_rows = [], []
    alpha = Image.new("L", size, 0)
    black = Image.new("L", size, 0)
    start = (width * 0.2, height * 0.1)
    pad = LINE_PX * 2
    for k in range(n_strokes):
        when = t0 + timedelta(seconds=20 * k + 5)
        guide_rows.append(
            _row(
                guide,
                "Guide",
                sid,
                when,
                20 * k + 5,
                "send_message",
                f"then go on a bit ({k + 1})",
                metadata={"receiver": follower, "message_type": "text"},
            )
        )
        points = _stroke_points(rng, start, width, height)
        start = points[-1]
        x0 = int(min(p[0] for p in points)) - pad
        y0 = int(min(p[1] for p in points)) - pad
        x1 = int(max(p[0] for p in points)) + pad
        y1 = int(max(p[1] for p in points)) + pad
        big = Image.new("L", ((x1 - x0) * SUPERSAMPLE, (y1 - y0) * SUPERSAMPLE), 0)
        scaled = [((x - x0) * SUPERSAMPLE, (y - y0) * SUPERSAMPLE) for x, y in points]
        ImageDraw.Draw(big).line(scaled, fill=255, width=LINE_PX * SUPERSAMPLE, joint="curve")
        box = (x0, y0, x1, y1)
        alpha.paste(ImageChops.lighter(alpha.crop(box), big.reduce(SUPERSAMPLE)), box)
        action_id = f"{k:08x}-1111-4222-8333-{rng.getrandbits(48):012x}"
        rel = f"files/{action_id}_map_image.png"
        Image.merge("RGBA", (black, black, black, alpha)).save(folder / rel)
        when = t0 + timedelta(seconds=20 * k + 15)
        follower_rows.append(
            _row(
                follower,
                "Follower",
                sid,
                when,
                20 * k + 15,
                "map_draw_stop",
                "brush_release",
                metadata={"stroke_tool": "brush"},
                map_image=rel,
                action_id=action_id,
            )
        )
    for name, rows in (
        (f"{guide}.guide_Guide.jsonl", guide_rows),
        (f"{follower}.follower_Follower.jsonl", follower_rows),
    ):
        (folder / name).write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return folder


def import_in_child(folder: Path) -> dict:
    """Import ``folder`` in a fresh process: its time, peak memory growth and number of draw actions."""
    out = subprocess.run(
        [sys.executable, "-c", _CHILD, str(folder), str(ROOT)], capture_output=True, text=True, check=True
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def run() -> dict[str, dict]:
    with tempfile.TemporaryDirectory() as tmp:
        folder = make_session(Path(tmp) / "session")
        got = import_in_child(folder)
    if got["n_draw"] != N_STROKES:
        raise RuntimeError(f"expected {N_STROKES} draw actions, the import made {got['n_draw']}")
    return {
        "import_ink_ms_per_stroke_3672x4752": {"value": got["ms"] / N_STROKES, "unit": "ms", "target": 1000},
        "import_ink_peak_mb_36_strokes": {"value": got["peak_mb"], "unit": "MB", "target": 500},
    }


if __name__ == "__main__":
    print(json.dumps(run(), indent=2))
