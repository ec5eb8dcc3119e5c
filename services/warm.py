"""The default dataset, opened before the first visitor asks (``deploy/serve.py`` calls this as the
server starts): loaded into the cache every session reads, with the tables its pages read first. A
visitor who comes meanwhile waits only for what is not done yet (a cached load is never done twice)."""

from __future__ import annotations

from corpus.dataset import Corpus
from services import datasets
from services.home import facts


def default_dataset() -> tuple[str | None, str]:
    """Open the dataset the app opens by default, through the pages' caches: (its name, "") or
    (None, the first line of why it does not open). Never raises: such a dataset is the pages' to
    report."""
    try:
        data = datasets.check(datasets.default_source().path)
    except Exception as exc:  # noqa: BLE001 - reported by the pages, with every problem
        return None, f"{type(exc).__name__}: {(str(exc).strip().splitlines() or [''])[0]}"
    if isinstance(data, Corpus):
        data.actions_df, data.sessions_df  # noqa: B018 - computed once, kept with the loaded corpus
        facts(data)
    return data.info.name, ""
