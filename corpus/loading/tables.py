"""The corpus as tables: one row per action, one per session, and the route coverage after every
action, built one session at a time.

A dataset is read session by session (:func:`corpus.loading.dataset.load_dir`); each session's rows are
taken as it is read, and the session itself need not stay in memory: a corpus of a million actions
is held as these tables (columns of numbers and shared strings), and its sessions are read again
when one is asked for (:class:`corpus.loading.session_store.SessionStore`). A corpus built in code makes
the same tables from its sessions, with the same :class:`TableBuilder`.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, cast

import numpy as np
import pandas as pd

from corpus import schema
from corpus.canvas import UNCHANGED, replay
from corpus.gridmap import GridMap
from corpus.loading.action_rows import ActionColumns
from corpus.metrics import chebyshev_distance, route_mask, score_cells
from corpus.model import NO_CELL_CHANGE, Session, SessionMeta

ACTION_COLUMNS = (
    "session_id",
    "condition",
    "split",
    "index",
    "timestamp",
    "role",
    "type",
    "n_cells",
    "text",
    "team_goal",
    "partner_intent",
    "self_reasoning",
    "aligned",
    "misalignment_reasons",
    "rationale",
    "progress",
    "no_cell_change",
    "route_pixel_ratio",
)
CATEGORICAL = ("condition", "split", "role", "type")
# Columns kept as compact numbers while the table is made (a role, a type or a label as its place
# among the schema's, made a category or texts at the end), and text columns turned into pandas
# strings every CHUNK rows (each action's own strings are then freed as the sessions are read, and
# a worker process hands its rows over as a few arrays, not a million strings). A session's own
# values are made of the sessions table's rows at the end, each repeated for the session's actions.
_INTS = ("index", "n_cells")
_FLOATS = ("timestamp", "progress", "route_pixel_ratio")
_PER_SESSION = ("session_id", "condition", "split")
_CODES = ("team_goal", "partner_intent", "self_reasoning")  # (None without a mental model)
# Columns kept as each value's place among their values (-1: None): a role and a type, made a
# category at the end, and a mental model's labels, made texts.
_CATEGORIES = {"role": schema.ROLES, "type": schema.ACTION_TYPES}
_LABELS = {dim: (*schema.DIMENSIONS[dim], schema.OTHER) for dim in _CODES}
_CODED = {**_CATEGORIES, **_LABELS}
_CODE_OF = {k: {None: -1, **{v: code for code, v in enumerate(values)}} for k, values in _CODED.items()}
# An action's optional fields (most sessions have none: a session without them adds its rows at once,
# as bytes): why it has no cell change (a code, as a label's; None without), and the platform's route
# pixel ratio (NaN without).
_FLAGS = {"no_cell_change": tuple(NO_CELL_CHANGE)}
_FLAG_CODE: dict[str | None, int] = {None: -1, **{v: code for code, v in enumerate(_FLAGS["no_cell_change"])}}
_NO_FLAG = array("b", [-1]).tobytes()
_NO_RATIO = array("d", [float("nan")]).tobytes()
_TEXTS = ("text", "misalignment_reasons", "rationale")
CHUNK = 50_000
TEXT_DTYPE = pd.Series(["-"]).dtype  # the dtype pandas gives a column of texts


@dataclass(frozen=True)
class Tables:
    """``actions``: one row per action (``ACTION_COLUMNS``), session by session in action order;
    ``sessions``: one row per session (condition, split, map, duration, counts by type, the final
    drawing's scores, the route deviation the source records, the number of actions with a route
    pixel ratio); ``coverage``: the route coverage after each action of ``actions``, NaN in
    sessions whose map has no route."""

    actions: pd.DataFrame
    sessions: pd.DataFrame
    coverage: np.ndarray


class _Route:
    """A map's route: its mask and its cells as flat indices (None when the map has none)."""

    def __init__(self, grid_map: GridMap):
        self.shape = cast(tuple[int, int], tuple(int(v) for v in grid_map.grid_size))
        self.mask = route_mask(grid_map.route, self.shape)
        self.cells = frozenset(np.flatnonzero(self.mask).tolist()) if grid_map.route else None
        self.size = max(int(self.mask.sum()), 1)
        self.distance = chebyshev_distance(self.mask, max_distance=3)  # (the drawing score's, made once per map)


@dataclass
class BuiltRows:
    """The rows a :class:`TableBuilder` made of a run of sessions, handed to another builder that
    takes them in their place (:meth:`TableBuilder.take_rows`): a worker process's share."""

    cols: dict[str, Any]
    texts: dict[str, list[pd.Series]]
    coverage: list[np.ndarray]
    rows: list[dict[str, Any]]


class TableBuilder:
    """Takes sessions one at a time (:meth:`add`) and makes the :class:`Tables` (:meth:`finish`)."""

    def __init__(self, maps: Mapping[str, GridMap]):
        self._maps = maps
        self._routes: dict[str, _Route] = {}
        self._cols: dict[str, Any] = self._empty()
        self._texts: dict[str, list[pd.Series]] = {k: [] for k in _TEXTS}
        self._coverage: list[np.ndarray] = []
        self._rows: list[dict[str, Any]] = []

    @staticmethod
    def _empty() -> dict[str, Any]:
        cols: dict[str, Any] = {k: [] for k in ACTION_COLUMNS if k not in _PER_SESSION}
        cols.update({k: array("q") for k in _INTS}, **{k: array("d") for k in _FLOATS})
        cols.update({k: array("b") for k in (*_CODED, *_FLAGS)})
        return cols

    def _flush_texts(self) -> None:
        for k in _TEXTS:
            if self._cols[k]:
                self._texts[k].append(pd.Series(self._cols[k], dtype=TEXT_DTYPE))
                self._cols[k] = []

    def _route(self, map_id: str) -> _Route:
        if map_id not in self._routes:
            self._routes[map_id] = _Route(self._maps[map_id])
        return self._routes[map_id]

    def add(self, s: Session) -> None:
        """The rows of a session built as a model."""
        self.add_columns(s, ActionColumns.of(s.actions))

    def add_columns(self, s: SessionMeta, acts: ActionColumns) -> None:
        """The rows of the session ``s`` whose actions are ``acts``."""
        n = len(acts)
        c = self._cols
        c["index"].extend(acts.index)
        c["timestamp"].extend(acts.timestamp)
        for k, code_of in _CODE_OF.items():
            c[k].extend(map(code_of.__getitem__, getattr(acts, k)))
        c["n_cells"].extend([len(x) if isinstance(x, list) else 0 for x in acts.content])
        c["text"].extend([x if isinstance(x, str) else "" for x in acts.content])
        c["aligned"].extend(acts.aligned)
        c["misalignment_reasons"].extend(acts.reasons)
        c["rationale"].extend(acts.rationale)
        c["progress"].extend([i / (n - 1) for i in acts.index] if n > 1 else [1.0] * n)
        flags, ratios = acts.no_cell_change, acts.route_pixel_ratio
        if flags is None:
            c["no_cell_change"].frombytes(_NO_FLAG * n)
        else:
            c["no_cell_change"].extend(map(_FLAG_CODE.__getitem__, flags))
        if ratios is None:
            c["route_pixel_ratio"].frombytes(_NO_RATIO * n)
        else:
            c["route_pixel_ratio"].extend([np.nan if v is None else v for v in ratios])
        if len(c["text"]) >= CHUNK:
            self._flush_texts()

        route = self._route(s.map_id)
        kinds = acts.type if flags is None else [UNCHANGED if f else k for k, f in zip(acts.type, flags)]
        steps: Iterable[tuple[str, Any]] = (
            zip(kinds, acts.content)
            if acts.in_grid
            else ((k, x if isinstance(x, list) else None) for k, x in zip(kinds, acts.content))
        )
        played = replay(route.shape, steps, route.cells, in_grid=acts.in_grid)
        sc = score_cells(played.final, route.mask, route.distance)
        self._coverage.append(
            np.full(n, np.nan) if played.route_delta is None else np.cumsum(played.route_delta) / route.size
        )
        types = acts.type
        row: dict[str, Any] = {
            "session_id": s.id,
            "condition": s.condition,
            "split": s.split,
            "map_id": s.map_id,
            "duration_min": s.duration_s / 60.0,
            "n_actions": n,
        }
        for t in schema.ACTION_TYPES:
            row[f"n_{t}"] = types.count(t)
        row.update(
            final_accuracy=sc.accuracy,
            reported_accuracy=s.final_accuracy,
            route_coverage=sc.coverage,
            distance_weighted=sc.distance_weighted,
            n_checkpoints=len(s.checkpoints),
            route_deviation=s.route_deviation,
            n_route_pixel_ratio=0 if ratios is None else n - ratios.count(None),
        )
        self._rows.append(row)

    def rows_made(self) -> BuiltRows:
        """The rows made so far, handed over (the builder starts again empty)."""
        self._flush_texts()
        made = BuiltRows(self._cols, self._texts, self._coverage, self._rows)
        self._cols, self._texts, self._coverage, self._rows = self._empty(), {k: [] for k in _TEXTS}, [], []
        return made

    def take_rows(self, made: BuiltRows) -> None:
        """Rows another builder made (:meth:`rows_made`), after the sessions taken so far: the
        tables are then those of taking those sessions here, in the same order."""
        self._flush_texts()
        for k in ACTION_COLUMNS:
            if k not in _TEXTS and k not in _PER_SESSION:
                self._cols[k].extend(made.cols[k])
        for k in _TEXTS:
            self._texts[k].extend(made.texts[k])
        self._coverage.extend(made.coverage)
        self._rows.extend(made.rows)

    def finish(self) -> Tables:
        self._flush_texts()
        cols = self._cols
        columns: dict[str, Any] = {}
        for k in ACTION_COLUMNS if len(cols["index"]) else ():
            if k in _PER_SESSION:
                columns[k] = self._per_session(k)
            elif k in _CATEGORIES:
                columns[k] = _categories_of(np.frombuffer(cols[k], dtype=np.int8), _CATEGORIES[k])
            elif k in _LABELS or k in _FLAGS:
                columns[k] = _labels_of(np.frombuffer(cols[k], dtype=np.int8), {**_LABELS, **_FLAGS}[k])
            elif k in _INTS or k in _FLOATS:
                columns[k] = np.frombuffer(cols[k], dtype=np.int64 if k in _INTS else np.float64).copy()
            elif k in _TEXTS:
                parts = self._texts[k]
                columns[k] = pd.concat(parts, ignore_index=True) if parts else pd.Series([], dtype=object)
            else:
                columns[k] = cols[k]
        if columns:
            actions = pd.DataFrame(columns)
        else:
            actions = pd.DataFrame({k: [] for k in ACTION_COLUMNS}).astype({col: "category" for col in CATEGORICAL})
        self._cols, self._texts = self._empty(), {k: [] for k in _TEXTS}
        coverage = np.concatenate(self._coverage) if self._coverage else np.zeros(0)
        return Tables(actions=actions, sessions=pd.DataFrame(self._rows), coverage=coverage.astype(float))

    def _per_session(self, name: str) -> pd.Series:
        """A column of a session's own value (its id, condition or split), each session's repeated
        for its actions (the sessions table's rows are in the order of the actions'); a condition or
        a split as a category of the values the actions have."""
        counts = np.fromiter((row["n_actions"] for row in self._rows), dtype=np.int64, count=len(self._rows))
        acted = counts > 0  # (a session without actions gives no row: nor its condition a category)
        values = pd.Series([row[name] for row, a in zip(self._rows, acted) if a], dtype=TEXT_DTYPE)
        if name in CATEGORICAL:
            values = values.astype("category")  # (the categories the actions have, in order)
        return values.take(np.repeat(np.arange(len(values)), counts[acted])).reset_index(drop=True)


def _categories_of(codes: np.ndarray, values: tuple[str, ...]) -> pd.Categorical:
    """The column of the values whose places among ``values`` are ``codes``, as a category of the
    values it has (in order, as pandas makes a category of a column of texts)."""
    used = sorted(values[k] for k in np.flatnonzero(np.bincount(codes, minlength=len(values))))
    place = np.full(len(values), -1, dtype=np.int8)
    place[[values.index(v) for v in used]] = np.arange(len(used))
    return pd.Categorical.from_codes(place[codes], categories=pd.Index(used, dtype=TEXT_DTYPE))


def _labels_of(codes: np.ndarray, values: tuple[str, ...]) -> pd.Series:
    """The column of the labels whose places among ``values`` are ``codes`` (-1: none), as a column
    of texts reads them (None where there is no label; a column of None without any)."""
    if (codes < 0).all():  # (no mental model at all: None, as a column of them reads)
        return pd.Series([None] * len(codes), dtype=object)
    return pd.Series(pd.array(list(values), dtype=TEXT_DTYPE).take(codes.astype(np.intp), allow_fill=True))


def tables_of(sessions: Mapping[str, Session], maps: Mapping[str, GridMap]) -> Tables:
    """The tables of sessions held in memory."""
    builder = TableBuilder(maps)
    for s in sessions.values():
        builder.add(s)
    return builder.finish()
