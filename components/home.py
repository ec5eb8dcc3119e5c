"""The Home page: what Groundwork is and the kinds of data it reads (every domain of the registry),
the dataset in use, and one way in for each kind of user (a reviewer's guided path through the demo,
an annotator's coding screen, a lead's round), in the words of the dataset's domain: Map Task sessions,
kitchen runs, a theory-of-mind benchmark, or a domain a lab added (a generic Home, from its entry)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from analysis.format import fmt_count
from components.dataset import synthetic_banner
from corpus import domain as registry
from corpus.benchmark.dataset import Benchmark
from corpus.domain import MAP_TASK, Dataset
from corpus.escape import md_line, md_text
from corpus.kitchen.dataset import KitchenCorpus
from corpus.loading.dataset import Corpus
from services.home import DatasetFacts, facts

PAIRINGS_NAMED = 4  # a dataset with more pairings names this many and counts the rest


def show(data: Dataset) -> None:
    """Home on ``data``: what the tool is, what it does on the dataset's domain, the dataset in use
    (with the synthetic banner), and the ways in, as the domain's own Home draws them."""
    front_door()
    domain = registry.of(data)
    if domain.introduction:
        st.markdown(domain.introduction)
    HOMES.get(data.domain, _generic)(data)


def front_door() -> None:
    """What Groundwork is, and every kind of data it reads (the registry's domains)."""
    titles = [d.title for d in registry.domains()]
    kinds = titles[0] if len(titles) == 1 else ", ".join(titles[:-1]) + " and " + titles[-1]
    count = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five"}.get(len(titles), fmt_count(len(titles)))
    st.markdown(
        "A workbench for studying how partners build common ground: people guiding each other over a map, "
        f"agents cooking together, models reasoning about minds. It holds {count} kinds of data: {kinds} "
        "(the sidebar chooses the dataset)."
    )


def _map_task(corpus: Any) -> None:
    found = facts(corpus)
    dataset_in_use(corpus, found)
    synthetic_banner(corpus)
    entries(found)


def _kitchen(kitchen: Any) -> None:
    kitchen_in_use(kitchen)
    synthetic_banner(kitchen)
    kitchen_entries(kitchen)


def _benchmark(bench: Any) -> None:
    benchmark_in_use(bench)
    synthetic_banner(bench)
    benchmark_entries()


def _generic(data: Dataset) -> None:
    """Home for a domain with no Home of its own: its units counted, and its screens."""
    domain = registry.of(data)
    n = len(data.units)
    st.markdown(
        f"**Dataset in use:** {md_text(data.name)}: {fmt_count(n)} {md_text(domain.unit)}{'' if n == 1 else 's'} "
        "(another dataset: the sidebar)."
    )
    synthetic_banner(data)
    if domain.main_page != "home":
        _step(
            f"pages/{domain.main_page}.py",
            domain.main_title,
            f"The dataset's {md_text(domain.title)}, one at a time.",
            domain.icon,
        )


# Each domain's own Home (a domain not named here gets the generic one).
HOMES: dict[str, Callable[[Any], None]] = {MAP_TASK: _map_task, "kitchen": _kitchen, "benchmark": _benchmark}


def dataset_in_use(corpus: Corpus, facts: DatasetFacts) -> None:
    conditions = " and ".join(c.replace("_", " ") for c in facts.conditions) or "none"
    st.markdown(
        f"**Dataset in use:** {md_text(corpus.info.name)}: {fmt_count(facts.n_sessions)} sessions, "
        f"{fmt_count(facts.n_actions)} actions, conditions {md_text(conditions)} (another one: the sidebar)."
    )


def _step(page: str, label: str, text: str, icon: str, **query) -> None:
    st.page_link(page, label=label, icon=icon, query_params=query or None)
    st.caption(text)


def entries(facts: DatasetFacts) -> None:
    """Three ways in, side by side."""
    review, annotate, lead = st.columns(3, border=True)
    with review:
        st.subheader("Reviewing the demo", anchor=False)
        if facts.tour_session:
            _step(
                "pages/replay.py",
                f"1. Replay session {md_line(facts.tour_session)}",  # a label reads Markdown: the id stays text
                "The route, the drawing as it grows, the chat, and what each person reported thinking.",
                ":material/play_circle:",
                session=facts.tour_session,
            )
        _step(
            "pages/alignment.py",
            "2. The alignment figure",
            "Shared understanding over task progress, with and without the Guide seeing the drawing.",
            ":material/trending_up:",
            view="figure",
        )
        _step(
            "pages/agreement.py",
            "3. The agreement report",
            "How reliably actions were coded: kappa and alpha, their intervals, what to check first.",
            ":material/handshake:",
        )
    _annotate_and_lead(annotate, lead, "action")


def _annotate_and_lead(annotate: DeltaGenerator, lead: DeltaGenerator, item: str) -> None:
    """The annotator's and the lead's ways in; ``item`` names what a coder codes."""
    with annotate:
        st.subheader("Annotating", anchor=False)
        _step(
            "pages/code.py",
            "Code",
            f"Sign in with the account your lead made and code one {item} at a time by keyboard; each label is "
            "saved as its key is pressed, blind to the other coders.",
            ":material/label:",
        )
    with lead:
        st.subheader("Leading a coding round", anchor=False)
        _step(
            "pages/tasks.py",
            "Tasks",
            "Accounts, coding tasks, the live agreement panel, exports.",
            ":material/assignment:",
        )
        _step(
            "pages/adjudicate.py",
            "Adjudicate",
            "Turn the labels into gold, then show each coder where they differed.",
            ":material/gavel:",
        )


# -- a dataset of kitchen runs -------------------------------------------------------------------


def _listed(names: list[str]) -> str:
    """``names`` as text from data: "a, b and c"; past :data:`PAIRINGS_NAMED`, the rest counted."""
    shown = [md_text(n) for n in names[:PAIRINGS_NAMED]]
    if len(names) > PAIRINGS_NAMED:
        shown.append(f"{fmt_count(len(names) - PAIRINGS_NAMED)} more")
    if not shown:
        return "none"
    return shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " and " + shown[-1]


def kitchen_in_use(kitchen: KitchenCorpus) -> None:
    """What the dataset holds: its runs, their directed pairings, task levels and recipes."""
    runs = kitchen.runs
    pairings = sorted({r.pairing for r in runs})
    levels = sorted({r.level for r in runs if r.level is not None})
    recipes = sorted({r.recipe for r in runs if r.recipe})
    delivered = sum(r.success for r in runs)
    level_text = (
        f"task level{'s' if len(levels) > 1 else ''} {_listed([fmt_count(v) for v in levels])}, " if levels else ""
    )
    st.markdown(
        f"**Dataset in use:** {md_text(kitchen.info.name)}: {fmt_count(len(runs))} runs of "
        f"{fmt_count(len(pairings))} directed pairing{'s' if len(pairings) != 1 else ''} (Chef model -> "
        f"Assistant model: {_listed(pairings)}), {level_text}{fmt_count(len(recipes))} "
        f"recipe{'s' if len(recipes) != 1 else ''}; {fmt_count(delivered)} of {fmt_count(len(runs))} runs "
        "delivered every order (another dataset: the sidebar)."
    )


def kitchen_entries(kitchen: KitchenCorpus) -> None:
    """Three ways in, side by side, as for Map Task sessions: the Kitchen screen, then coding."""
    review, annotate, lead = st.columns(3, border=True)
    with review:
        st.subheader("Reviewing the runs", anchor=False)
        _step(
            "pages/kitchen.py",
            "1. The Kitchen screen",
            "The coordination metrics per pairing, what became of the requests at each task level, and the "
            "request units behind any bar, each with why it was coded so.",
            ":material/skillet:",
        )
        if kitchen.runs:
            first = kitchen.runs[0]
            _step(
                "pages/kitchen.py",
                "2. Replay a run",
                f"Run {md_text(first.id)} step by step: the kitchen, both agents, what was said and done, and the "
                "validator's corrections.",
                ":material/play_circle:",
                run=first.id,
                step="0",
            )
        _step(
            "pages/report.py",
            "3. The report",
            "The runs' results in one file, to share or to print.",
            ":material/description:",
        )
    _annotate_and_lead(annotate, lead, "request unit")


def benchmark_in_use(bench: Benchmark) -> None:
    """What the benchmark holds: its questions, slices and runs."""
    scored, refused = len(bench.ok_runs), len(bench.refused)
    st.markdown(
        f"**Dataset in use:** {md_text(bench.name)}: {fmt_count(len(bench.items))} questions, "
        f"{fmt_count(len(bench.slices))} ways to slice them, {fmt_count(scored)} run{'s' if scored != 1 else ''} "
        f"of models to compare" + (f" ({fmt_count(refused)} refused: Compare says why)" if refused else "") + "."
    )


def benchmark_entries() -> None:
    """The ways in: Compare, then the report."""
    st.subheader("Reviewing the models", anchor=False)
    _step(
        "pages/compare.py",
        "1. Compare",
        "Every run scored, the leaderboard with intervals, the slices, the confusions and each question with "
        "every run's answer.",
        ":material/compare_arrows:",
    )
    _step(
        "pages/report.py",
        "2. The report",
        "The benchmark's results in one file, to share or to print.",
        ":material/description:",
    )
