"""The filter bar of the analysis pages and the sentence under every chart saying what it shows.

One bar, the same on every analysis page: actor role, condition, split, sessions, and the label
sources (grounding acts; mental models). The choices are remembered for the whole browser session
(:mod:`components.remembered`), so moving between analysis pages keeps them. An empty choice means
"all".
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import streamlit as st

from analysis.filters import Filters
from analysis.format import fmt_share_range
from components.label_source import act_source_picker, mental_model_picker, revealed_gold
from components.palette import CONDITION_NAMES, CONDITION_SHORT, ROLE_NAMES, SPLIT_NAMES
from components.remembered import is_restored, remembered
from corpus import schema
from corpus.escape import md_line
from corpus.loading.dataset import Corpus
from services.alignment import Scope, grounding_acts, mental_models

# A chosen condition is a chip in a narrow column: its short name (the legends give the long one).
CONDITION_CHIPS = CONDITION_SHORT


def _multi(
    container,
    label: str,
    options: list[str],
    key: str,
    names: dict | None = None,
    placeholder: str = "all",
    help: str | None = None,
) -> tuple[str, ...]:
    chosen = container.multiselect(
        label,
        options,
        key=key,
        placeholder=placeholder,
        help=help,
        format_func=names.get if names else str,
        **remembered(key, options),
    )
    return tuple(chosen)


FIGURE_VIEW = "figure"  # ?view=figure: the page opens on its figure, the filters folded into one line


def figure_first() -> bool:
    """Whether the page was opened to show its figure first (the Home page's reviewer path)."""
    return st.query_params.get("view") == FIGURE_VIEW


@contextmanager
def folded_filters(folded: bool) -> Iterator[None]:
    """Where the filters go: on the page, or, folded, in one closed line that says what they are set
    to (so that the figure is the first thing under the title)."""
    if not folded:
        yield
        return
    chosen = Filters(
        *(tuple(st.session_state.get(k) or ()) for k in ("an_roles", "an_conditions", "an_splits", "an_sessions"))
    )
    label = md_line(f"Filters: {chosen.describe()} (open to change)")  # session ids are data
    with st.expander(label, expanded=False, icon=":material/tune:"):
        yield


def filter_bar(corpus: Corpus, acts: bool = True) -> Scope:
    """The filters and label sources the user picks, as a :class:`services.alignment.Scope`."""
    with st.container(border=True, key="an_filters"):
        # Three filters on one row, the sessions and the label sources on the next: a row of four
        # cuts the chosen values ("Guide", "Follower"; "visible", "not visible") at 1280 px.
        c = st.columns([1.0, 1.1, 0.8])
        roles = _multi(c[0], "Role", list(schema.ROLES), "an_roles", ROLE_NAMES, "both")
        present = corpus.sessions_df
        conds = [x for x in schema.CONDITIONS if (present["condition"] == x).any()]
        splits_present = [x for x in schema.SPLITS if (present["split"] == x).any()]
        conditions = _multi(
            c[1],
            "Condition",
            conds,
            "an_conditions",
            CONDITION_CHIPS,
            "all",
            help="; ".join(
                f"{CONDITION_CHIPS[x]}: {CONDITION_NAMES[x]}" for x in conds if CONDITION_NAMES[x] != CONDITION_CHIPS[x]
            )
            or None,
        )
        splits = _multi(c[2], "Split", splits_present, "an_splits", SPLIT_NAMES, "all")
        second = st.columns([1.0, 1.0, 1.0] if acts else [1.0, 1.0])
        sessions = _multi(second[0], "Sessions", list(corpus.sessions), "an_sessions", None, "all sessions")
        sources = second[1:]
        with sources[0]:
            mm = mental_model_picker(corpus)
        act_key = None
        gold = None
        if acts:
            with sources[1]:
                gold = revealed_gold(corpus)
                act_key = act_source_picker(corpus, gold)
    return Scope(corpus=corpus, filters=Filters(roles, conditions, splits, sessions), mm=mm, acts=act_key, gold=gold)


def scope_caption(
    scope: Scope, roles: bool = True, uses_acts: bool = False, uses_mm: bool = True, note: str = ""
) -> None:
    """Under a chart: the filters and label sources it was drawn with."""
    parts = [f"Filters: {scope.filters.describe(roles=roles)}."]
    if uses_mm:
        parts.append(mental_models(scope).description)
    if uses_acts:
        labels = grounding_acts(scope)
        parts.append(labels.description if labels is not None else "No grounding-act labels.")
    if note:
        parts.append(note)
    st.caption(md_line(" ".join(parts)))


def progress_picker(corpus: Corpus, default: str, key: str = "an_progress") -> tuple[str, int]:
    """How progress is measured (route coverage, action position, elapsed time, and the platform's
    route pixel ratio where sessions log it) and how many bins. With the route pixel ratio chosen,
    the sessions that log none are named: they are left out of its charts."""
    from analysis.progress import PROGRESS_KINDS, pixel_ratio_sessions

    c = st.columns([2, 1])
    logged, unlogged = pixel_ratio_sessions(corpus)
    kinds = [k for k in PROGRESS_KINDS if k != "pixel_ratio" or logged]
    keep = remembered(key, kinds)
    first = {} if is_restored(key) else {"default": default}
    kind = c[0].segmented_control(
        "Progress measured by",
        kinds,
        key=key,
        format_func=PROGRESS_KINDS.get,
        **first,
        **keep,
        help=(
            "Route coverage: share of the route's cells on the Follower's canvas after the action (the "
            "paper's drawing progress; default where the map has a route). Action position: place in "
            "the session's action sequence. Elapsed time: share of the session's duration."
            + (
                " Route pixel ratio: the collaboration platform's own measure of the drawing after the "
                "action (its metadata.route_pixel_ratio), as a share of the largest the session reached."
                if logged
                else ""
            )
        ),
    )
    bins_keep = remembered(f"{key}_bins", list(range(3, 11)))
    bins = c[1].slider(
        "Progress bins", 3, 10, **({} if is_restored(f"{key}_bins") else {"value": 5}), key=f"{key}_bins", **bins_keep
    )
    if kind == "pixel_ratio" and unlogged:
        shown = ", ".join(unlogged[:5]) + (f" and {len(unlogged) - 5} more" if len(unlogged) > 5 else "")
        st.caption(
            md_line(
                f"{len(unlogged)} of {len(logged) + len(unlogged)} sessions log no route pixel ratio ({shown}): "
                "their actions are left out of the charts by this measure."
            )
        )
    return kind or default, bins


def progress_bin(progress_name: str, b: int, bins: int) -> str:
    """One progress bin in words: "route coverage 40% to 60%"."""
    return f"{progress_name} {fmt_share_range(b / bins, (b + 1) / bins)}"
