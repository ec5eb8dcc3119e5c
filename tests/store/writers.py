"""Writer processes for the concurrency tests (a small module: each spawned process imports only
this and the store)."""

from __future__ import annotations


def write_labels(url: str, task_id: int, username: str, items: list[str], request_ids: list[str], start, out) -> None:
    """Label ``items`` as ``username`` (one request id each) once ``start`` is set; put
    (username, label ids, errors) on ``out``."""
    from corpus.store import Store

    store = Store(url)
    user = store.user(username)
    ids, errors = [], []
    start.wait(timeout=120)
    for item, rid in zip(items, request_ids):
        try:
            ids.append(store.add_label(user, task_id, item, "continue", request_id=rid))
        except Exception as exc:  # noqa: BLE001 - reported to the test, which shows them
            errors.append(f"{type(exc).__name__}: {exc}")
    store.engine.dispose()
    out.put((username, ids, errors))


def import_labels(url: str, task_id: int, lead: str, files: list[str], start, out) -> None:
    """Import each of ``files`` (label CSV texts, new coders created) as ``lead``, one after the other,
    once ``start`` is set; put (lead, labels imported per file, errors) on ``out``."""
    from corpus.store import Store

    store = Store(url)
    user = store.user(lead)
    counts, errors = [], []
    start.wait(timeout=120)
    for k, text in enumerate(files):
        try:
            counts.append(
                store.import_labels_csv(
                    user, task_id, text.encode(), file=f"import-{k}.csv", create_coders=True
                ).n_labels
            )
        except Exception as exc:  # noqa: BLE001 - reported to the test, which shows them
            errors.append(f"{type(exc).__name__}: {exc}")
    store.engine.dispose()
    out.put((lead, counts, errors))
