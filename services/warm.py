"""The default dataset, opened before the first visitor asks (``deploy/serve.py`` calls this as the
server starts): loaded into the cache every session reads, with the tables its pages read first. A
visitor who comes meanwhile waits only for what is not done yet (a cached load is never done twice)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from corpus.domain import MAP_TASK
from services import datasets
from services.home import facts


def _map_task_ahead(data: Any) -> None:
    data.actions_df, data.sessions_df  # noqa: B018 - computed once, kept with the loaded corpus
    facts(data)


# What each domain's first pages read, made ahead (a domain not named here: its load alone).
AHEAD: dict[str, Callable[[Any], None]] = {MAP_TASK: _map_task_ahead}


def default_dataset() -> tuple[str | None, str]:
    """Open the dataset the app opens by default, through the pages' caches: (its name, "") or
    (None, the first line of why it does not open). Never raises: such a dataset is the pages' to
    report."""
    try:
        data = datasets.check(datasets.default_source().path)
    except Exception as exc:  # noqa: BLE001 - reported by the pages, with every problem
        return None, f"{type(exc).__name__}: {(str(exc).strip().splitlines() or [''])[0]}"
    AHEAD.get(data.domain, lambda _: None)(data)
    return data.name, ""
