"""The lead's live panel on a task of a million labels (200,000 items x 5 coders, SQLite).

- ``label_to_panel_numbers_ms_1m``: one label written (``Store.add_label``, which updates the task's
  agreement sums in its transaction) and the panel's headline numbers read from those sums
  (``services.coding.panel_numbers``: Fleiss' kappa, alpha, percent agreement, mean Cohen's kappa,
  AC1 and the counts); median over repeats.
- ``tasks_page_rerun_ms_1m``: one run of the whole Tasks page (Streamlit's AppTest, signed in as
  the lead) after a label came in, the details already computed once (they follow the labels on
  their own schedule, off the label path); median over repeats. The run shows the new label's count.
- ``tasks_page_first_ms_1m`` (no target): the page's first run, which computes the details from the
  labels (kappa's bootstrap interval, diagnostics, drift, matrices).
- ``agreement_recount_s_1m`` (no target): counting the task's sums from scratch, as an import of
  a million labels or the upgrade to schema 6 does.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

_CHILD = r"""
import json, os, statistics, sys, time, uuid
sys.path.insert(0, sys.argv[1])
os.environ["GROUNDWORK_DATA_DIR"] = sys.argv[2]
n_items, n_coders = int(sys.argv[3]), int(sys.argv[4])
from datetime import UTC, datetime
import numpy as np
from corpus import codebook as cbm
from corpus.store import Store
from corpus.store.agreement import recount_agreement
from corpus.store.tables import label_row, labels, recount_labels
from services.coding import panel_numbers

store = Store.open(sys.argv[2])
lead = store.create_user("lead", "lead-password", "lead")
coders = [store.create_user(f"c{i}", None, "coder") for i in range(n_coders)]
cb = cbm.default()
codes = np.asarray(cb.code_ids)
items = [{"session_id": "S", "action_index": i} for i in range(n_items)]
task = store.create_task(lead, "big", "x", cb, items, coders, dataset_hash="x")
rng = np.random.default_rng(29)
truth = rng.integers(0, len(codes), n_items)
now = datetime.now(UTC)
with store.engine.begin() as c:
    for coder in coders:
        given = np.where(rng.random(n_items) < 0.8, truth, rng.integers(0, len(codes), n_items))
        c.execute(
            labels.insert(),
            [label_row(task.id, f"S:{i}", coder.id, str(codes[g]), cb.version, "import", now) for i, g in enumerate(given)],
        )
    recount_labels(c, task.id)
    t0 = time.perf_counter()
    recount_agreement(c, task.id)
    recount_s = time.perf_counter() - t0
assert store.labels_version(task.id)[0] == n_items * n_coders

times = []
for k in range(51):
    t0 = time.perf_counter()
    store.add_label(coders[k % n_coders], task.id, f"S:{k}", str(codes[k % len(codes)]), note="a bench label", request_id=uuid.uuid4().hex)
    numbers = panel_numbers(lead, task.id, store=store)
    times.append((time.perf_counter() - t0) * 1000)
assert numbers.headline.n_labels == n_items * n_coders, numbers.headline.n_labels

from streamlit.runtime.pages_manager import PagesManager
from streamlit.testing.v1 import AppTest

at = AppTest.from_file(os.path.join(sys.argv[1], "app.py"), default_timeout=600)
at.run()
PagesManager.uses_pages_directory = False
at.switch_page("pages/tasks.py").run()
at.text_input(key="auth_username").input("lead")
at.text_input(key="auth_password").input("lead-password")
t0 = time.perf_counter()
at.button[0].click().run()
first = (time.perf_counter() - t0) * 1000
assert not at.exception, [e.value for e in at.exception]
reruns = []
for k in range(5):
    store.add_label(coders[0], task.id, f"S:{1000 + k}", str(codes[0]), request_id=uuid.uuid4().hex)
    n_rows = store.labels_version(task.id)[0]
    t0 = time.perf_counter()
    at.run()
    reruns.append((time.perf_counter() - t0) * 1000)
    assert not at.exception, [e.value for e in at.exception]
    shown = "\n".join(c.value for c in at.caption)
    assert "labels from 5 coders" in shown, shown[:500]
print(json.dumps({"numbers": statistics.median(times), "rerun": statistics.median(reruns), "first": first,
                  "recount": recount_s}))
"""


def run(n_items: int = 200_000, n_coders: int = 5) -> dict[str, dict]:
    with tempfile.TemporaryDirectory() as data_dir:
        proc = subprocess.run(
            [sys.executable, "-c", _CHILD, str(ROOT), data_dir, str(n_items), str(n_coders)],
            capture_output=True,
            text=True,
            cwd=ROOT,
        )
    if proc.returncode != 0:
        raise RuntimeError(f"panel bench failed:\n{proc.stderr[-3000:]}")
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    return {
        "label_to_panel_numbers_ms_1m": {"value": out["numbers"], "unit": "ms", "target": 20},
        "tasks_page_rerun_ms_1m": {"value": out["rerun"], "unit": "ms", "target": 300},
        "tasks_page_first_ms_1m": {"value": out["first"], "unit": "ms", "target": None},
        "agreement_recount_s_1m": {"value": out["recount"], "unit": "s", "target": None},
    }


if __name__ == "__main__":
    print(run(*map(int, sys.argv[1:])))
