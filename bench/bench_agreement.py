"""Agreement speed at 10,000 items x 5 coders (50,000 labels, 8 categories).

- ``label_to_kappa_ms_10000x5``: server time from a label click to the lead's refreshed panel, on
  a SQLite label store holding 50,000 labels: the coder's label is written
  (``Store.add_label``), the lead's live panel reads the labels added since its last refresh
  (``Store.refresh_labels``) and recomputes everything it shows from one report
  (``lead_refresh``: Fleiss' kappa with its bootstrap interval, Krippendorff's alpha, percent
  agreement, mean pairwise Cohen's kappa, Gwet's AC1, diagnostics, coincidences, the most
  disagreed items, kappa's drift). Median over repeats.
- ``kappa_panel_ms_10000x5``: the headline statistics alone (``analysis.agreement.panel`` on the
  long table, no bootstrap).
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
    codes = np.where(
        rng.random((n_items, n_coders)) < 0.8, truth[:, None], rng.integers(0, len(CODES), (n_items, n_coders))
    )
    sessions = np.array([f"S{i // 100:03d}" for i in range(n_items)])
    return pd.DataFrame(
        {
            "session_id": np.repeat(sessions, n_coders),
            "action_index": np.repeat(np.arange(n_items) % 100, n_coders),
            "coder": np.tile([f"coder_{c}" for c in range(n_coders)], n_items),
            "code": np.asarray(CODES)[codes.ravel()],
            "partition": "validation",
        }
    )


def _panel_after_one_label(df: pd.DataFrame, repeats: int = 21) -> float:
    from analysis.agreement import LabelTable, item_keys, panel

    long = df.assign(item=item_keys(df, "session_id,action_index"))[["item", "coder", "code"]]
    before, new = long.iloc[:-1], long.iloc[-1:]
    panel(LabelTable(before, label="code"))  # warm up imports
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        now = pd.concat([before, new], ignore_index=True)
        numbers = panel(LabelTable(now, label="code"))
        times.append((time.perf_counter() - t0) * 1000)
    assert numbers.n_labels == len(long)
    return statistics.median(times)


def _label_to_kappa_through_the_store(df: pd.DataFrame, repeats: int = 21) -> float:
    import uuid

    from analysis.live_panel import lead_refresh
    from corpus import codebook as cbm
    from corpus.store import Store

    with tempfile.TemporaryDirectory() as tmp:
        store = Store.open(tmp)
        lead = store.create_user("lead", "lead-password", "lead")
        items = df[["session_id", "action_index"]].drop_duplicates().to_dict("records")
        task = store.create_task(lead, "bench", "bench", cbm.default(), items, [], seed=1, dataset_hash="bench")
        csv = pd.DataFrame(
            {"item": df["session_id"] + ":" + df["action_index"].astype(str), "coder": df["coder"], "label": df["code"]}
        )
        store.import_labels_csv(lead, task.id, csv.to_csv(index=False), create_coders=True, coder_kind="human")
        coder = store.user("coder_0")
        view = store.refresh_labels(lead, task.id)
        lead_refresh(view, task.n_items)  # warm up imports
        item_ids = view["item_id"].unique()
        codes = list(CODES)
        times = []
        for k in range(repeats):
            t0 = time.perf_counter()
            store.add_label(
                coder,
                task.id,
                str(item_ids[k]),
                codes[k % len(codes)],
                note="bench",
                seconds=3.0,
                request_id=uuid.uuid4().hex,
            )
            view = store.refresh_labels(lead, task.id, view)
            live = lead_refresh(view, task.n_items)
            times.append((time.perf_counter() - t0) * 1000)
        assert live.report.n_labels == len(df) and len(view) == len(df)
        store.engine.dispose()
    return statistics.median(times)


def _cli_ms(df: pd.DataFrame, runs: int = 3) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "grounding_acts.csv"
        df.to_csv(path, index=False)
        times = []
        for _ in range(runs):
            t0 = time.perf_counter()
            subprocess.run(
                [sys.executable, "-m", "analysis", "agreement", str(path), "--json"],
                cwd=ROOT,
                check=True,
                capture_output=True,
            )
            times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


def run() -> dict[str, dict]:
    df = labels_frame()
    return {
        "label_to_kappa_ms_10000x5": {"value": _label_to_kappa_through_the_store(df), "unit": "ms", "target": 150},
        "kappa_panel_ms_10000x5": {"value": _panel_after_one_label(df), "unit": "ms", "target": None},
        "agreement_cli_ms_10000x5": {"value": _cli_ms(df), "unit": "ms", "target": None},
    }


if __name__ == "__main__":
    for name, r in run().items():
        print(f"{name}: {r['value']:.1f} {r['unit']}")
