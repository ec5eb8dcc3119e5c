"""Agreement speed at 10,000 items x 5 coders (50,000 labels, 8 categories).

- ``label_to_kappa_ms_10000x5``: the live panel after one new label: append the label to the long
  table and recompute Fleiss' kappa, Krippendorff's alpha (no bootstrap), percent agreement, mean
  pairwise Cohen's kappa and Gwet's AC1 (``analysis.agreement.panel``). Median over repeats.
- ``agreement_cli_ms_10000x5``: wall time of ``python -m analysis agreement FILE --json`` (a fresh
  process, 1,000 bootstrap resamples) on a generated 50,000-row CSV. Median of three runs.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

CODES = ("initiate", "continue", "acknowledge", "repair", "request_repair", "request_ack", "cancel", "other")


def labels_frame(n_items: int = 10_000, n_coders: int = 5, seed: int = 5) -> pd.DataFrame:
    """Coders who agree with a latent category 80 % of the time, in the dataset's label layout."""
    rng = np.random.default_rng(seed)
    truth = rng.choice(len(CODES), n_items, p=[0.3, 0.25, 0.2, 0.1, 0.05, 0.04, 0.02, 0.04])
    codes = np.where(rng.random((n_items, n_coders)) < 0.8, truth[:, None], rng.integers(0, len(CODES), (n_items, n_coders)))
    sessions = np.array([f"S{i // 100:03d}" for i in range(n_items)])
    return pd.DataFrame({
        "session_id": np.repeat(sessions, n_coders),
        "action_index": np.repeat(np.arange(n_items) % 100, n_coders),
        "coder": np.tile([f"coder_{c}" for c in range(n_coders)], n_items),
        "code": np.asarray(CODES)[codes.ravel()],
        "partition": "validation",
    })


def _panel_after_one_label(df: pd.DataFrame, repeats: int = 21) -> float:
    from analysis.agreement import item_keys, panel

    long = df.assign(item=item_keys(df, "session_id,action_index"))[["item", "coder", "code"]]
    before, new = long.iloc[:-1], long.iloc[-1:]
    panel(before, label_col="code")  # warm up imports
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        now = pd.concat([before, new], ignore_index=True)
        numbers = panel(now, label_col="code")
        times.append((time.perf_counter() - t0) * 1000)
    assert numbers["n_labels"] == len(long)
    return statistics.median(times)


def _cli_ms(df: pd.DataFrame, runs: int = 3) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "grounding_acts.csv"
        df.to_csv(path, index=False)
        times = []
        for _ in range(runs):
            t0 = time.perf_counter()
            subprocess.run([sys.executable, "-m", "analysis", "agreement", str(path), "--json"], cwd=ROOT,
                           check=True, capture_output=True)
            times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


def run() -> dict[str, dict]:
    df = labels_frame()
    return {
        "label_to_kappa_ms_10000x5": {"value": _panel_after_one_label(df), "unit": "ms", "target": 150},
        "agreement_cli_ms_10000x5": {"value": _cli_ms(df), "unit": "ms", "target": None},
    }


if __name__ == "__main__":
    for name, r in run().items():
        print(f"{name}: {r['value']:.1f} {r['unit']}")
