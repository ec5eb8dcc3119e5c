"""Label store speed on SQLite (WAL, synchronous=FULL: every acknowledged label is on disk).

- ``label_write_ms_10000x5``: one ``Store.add_label`` (with a request id) on a store holding a
  10,000-item task with 50,000 labels; median over repeats. One short transaction: a check query
  and an insert, then the commit's fsync, which is most of it.
- ``labels_version_ms_10000x5``: ``Store.labels_version`` (label count and newest id of the task,
  the live views' "changed since" check) on the same store; median.
- ``labels_version_ms_1m``: the same check on a task of 200,000 items x 5 coders (1,000,000 label
  rows, written as one import); median. The version is kept on the task's row, so the check costs
  the same at any size.
- ``ten_writers_s_10x500``: ten processes each writing 500 labels at once into one SQLite store
  (the concurrency test's load), wall time of the writes.
"""

from __future__ import annotations

import multiprocessing as mp
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))


def _store_with_labels(tmp: str):
    from bench_agreement import labels_frame

    from corpus import codebook as cbm
    from corpus.store import Store

    df = labels_frame()
    store = Store.open(tmp)
    lead = store.create_user("lead", "lead-password", "lead")
    items = df[["session_id", "action_index"]].drop_duplicates().to_dict("records")
    task = store.create_task(lead, "bench", "bench", cbm.default(), items, [], seed=1, dataset_hash="bench")
    csv = df.assign(item=df["session_id"] + ":" + df["action_index"].astype(str))[["item", "coder", "code"]]
    store.import_labels_csv(
        lead, task.id, csv.rename(columns={"code": "label"}).to_csv(index=False), create_coders=True, coder_kind="human"
    )
    return store, task, store.user("coder_0"), sorted(set(csv["item"]))


def _median_ms(fn, repeats: int = 101) -> float:
    times = []
    for k in range(repeats):
        t0 = time.perf_counter()
        fn(k)
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


def _writer(url: str, task_id: int, username: str, n: int, start, out) -> None:
    from corpus.store import Store

    store = Store(url)
    user = store.user(username)
    start.wait()
    t0 = time.perf_counter()
    for i in range(n):
        store.add_label(user, task_id, f"S:{i}", "continue", request_id=f"{username}-{i}")
    out.put((t0, time.perf_counter()))


def _ten_writers_s(n: int = 500) -> float:
    from corpus import codebook as cbm
    from corpus.store import Store

    with tempfile.TemporaryDirectory() as tmp:
        store = Store.open(tmp)
        lead = store.create_user("lead", "lead-password", "lead")
        coders = [store.create_user(f"c{i}", None, "coder", kind="model") for i in range(10)]
        task = store.create_task(
            lead,
            "load",
            "x",
            cbm.default(),
            [{"session_id": "S", "action_index": i} for i in range(n)],
            coders,
            dataset_hash="x",
        )
        ctx = mp.get_context("forkserver")
        out, start = ctx.Queue(), ctx.Event()
        import bench_store  # the writer as the child processes will import it (run.py loads this file apart)

        procs = [
            ctx.Process(target=bench_store._writer, args=(store.url, task.id, c.username, n, start, out))
            for c in coders
        ]
        for p in procs:
            p.start()
        start.set()
        spans = [out.get(timeout=600) for _ in procs]
        for p in procs:
            p.join()
        store.engine.dispose()
    return max(end for _, end in spans) - min(begin for begin, _ in spans)


def _version_ms_1m(n_items: int = 200_000, n_coders: int = 5) -> float:
    """labels_version on a task with a million label rows (bulk-written as an import writes them)."""
    from datetime import UTC, datetime

    from corpus import codebook as cbm
    from corpus.store import Store
    from corpus.store.tables import label_row, labels, recount_labels

    with tempfile.TemporaryDirectory() as tmp:
        store = Store.open(tmp)
        lead = store.create_user("lead", "lead-password", "lead")
        coders = [store.create_user(f"c{i}", None, "coder", kind="model") for i in range(n_coders)]
        items = [{"session_id": "S", "action_index": i} for i in range(n_items)]
        task = store.create_task(lead, "big", "x", cbm.default(), items, coders, dataset_hash="x")
        now = datetime.now(UTC)
        with store.engine.begin() as c:
            for coder in coders:
                rows = [
                    label_row(task.id, f"S:{i}", coder.id, "continue", "1.0", "import", now) for i in range(n_items)
                ]
                c.execute(labels.insert(), rows)
            recount_labels(c, task.id)
        assert store.labels_version(task.id)[0] == n_items * n_coders
        ms = _median_ms(lambda k: store.labels_version(task.id))
        store.engine.dispose()
    return ms


def run() -> dict[str, dict]:
    with tempfile.TemporaryDirectory() as tmp:
        store, task, coder, items = _store_with_labels(tmp)
        write = _median_ms(lambda k: store.add_label(coder, task.id, items[k], "repair", request_id=uuid.uuid4().hex))
        version = _median_ms(lambda k: store.labels_version(task.id))
        store.engine.dispose()
    return {
        "label_write_ms_10000x5": {"value": write, "unit": "ms", "target": 25},
        "labels_version_ms_10000x5": {"value": version, "unit": "ms", "target": 20},
        "labels_version_ms_1m": {"value": _version_ms_1m(), "unit": "ms", "target": 5},
        "ten_writers_s_10x500": {"value": _ten_writers_s(), "unit": "s", "target": None},
    }


if __name__ == "__main__":
    for name, r in run().items():
        print(f"{name}: {r['value']:.1f} {r['unit']}")
