"""The reproduction report of a Map Task dataset: the paper's results in the paper's order, each with
its n, its interval procedure and its test, and where they came from.

Every number comes from the service the screen uses, with the screen's opening choices (no filter,
the participants' mental models, the grounding-act source the pages open on, the default progress
measure with 5 bins, the GLM with cluster-robust errors, Welch's test for outcomes, the people
pooled for agreement, every bootstrap seeded): the report's tables are the pages' numbers, and
two builds on the same inputs give the same tables byte for byte.

Contents (:func:`build`): the dataset (Table 1, Table 8) and, given a reference, the published
values beside them; task outcomes by condition; agreement among the people coding grounding acts;
grounding acts by condition (Fig. 3, the test of independence and its residuals) and partner
alignment within each act (Fig. 4 left); alignment over task progress by condition (Fig. 4 right),
the model behind it, and dyadic alignment; why not aligned; the leaderboards of the dataset's own
runs (and a run naming a published model beside its scores); provenance. Kitchen runs
(:func:`build_kitchen`) and benchmarks (:func:`build_benchmark`) get their screens' tables;
:func:`build_for` picks by the dataset's domain (:data:`REPORTS`, keyed by the domain registry's
names). The parts of every report are :mod:`reports.document`'s.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

import pandas as pd

from analysis.descriptive import table1, table8
from analysis.format import fmt, fmt_ci, fmt_count, fmt_p, fmt_test, p_clause
from analysis.label_sources import PARTICIPANTS, act_sources
from analysis.outcomes import outcome_numbers
from analysis.progress_model import summary_sentence
from analysis.results import Test
from analysis.split import standing_sentence
from components.act_charts import act_share_figure, alignment_by_act_figure
from components.alignment_charts import dyad_figure, dyad_summary, model_rows, progress_figure
from components.compare.benchmark import leaderboard_frame
from components.kitchen import composition_figure, metric_view, table4_view
from components.label_source import GOLD_MIN_ITEMS
from components.outcome_charts import outcome_figure, outcome_table
from components.palette import CONDITION_NAMES, group_label
from components.reason_charts import (
    acts_before_figure,
    acts_before_sentence,
    reason_share_figure,
    reason_tests_sentence,
)
from corpus import domain as registry
from corpus.benchmark.dataset import Benchmark
from corpus.domain import MAP_TASK, Dataset
from corpus.kitchen.dataset import KitchenCorpus
from corpus.loading.dataset import Corpus
from corpus.schema import GROUNDING_ACTS_SCHEME, LABEL_SCHEMA_VERSION
from corpus.values import Undefined
from reports.document import Figure, Reproduction, Section, Table, codebooks_used, file_part, provenance_block
from reports.figures import draw_ahead
from reports.reference import Reference, basis, comparison, model_comparison
from services import agreement as agreement_svc
from services import alignment as svc
from services import compare as compare_svc
from services import kitchen as kitchen_svc
from services import overview

BINS = 5  # the Alignment page's opening number of progress bins
LOOK_BACK = 3  # Why not aligned's opening look-back, in actions
LEADERBOARDS = {
    "next_action": "Next action prediction (Tables 2 and 9)",
    "mental_model": "Mental model prediction (Tables 3 and 10)",
}
OUTCOME_TEST = "welch"
SCHEME = GROUNDING_ACTS_SCHEME
KITCHEN_WINDOW = "level"  # the Kitchen screen's opening acceptance window


def default_scope(corpus: Corpus, gold: pd.DataFrame | None = None) -> svc.Scope:
    """The scope the analysis pages open on: no filter, the participants' mental models, and the
    grounding-act source the pages choose first."""
    sources = act_sources(corpus, gold)
    acts = svc.act_source_default(corpus, gold, sources, GOLD_MIN_ITEMS) if sources else None
    return svc.Scope(corpus=corpus, mm=PARTICIPANTS, acts=acts, gold=gold)


def _dataset(corpus: Corpus) -> Section:
    s = corpus.sessions_df
    stats = overview.stats(corpus)
    by = ", ".join(f"{CONDITION_NAMES.get(c, c)}: {n}" for c, n in s["condition"].value_counts().sort_index().items())
    return Section(
        "The dataset",
        (
            f"{fmt_count(len(s))} sessions ({by}) with {fmt_count(len(corpus.actions_df))} actions.",
            "Table 1: actions per session by type, mean (SD) over sessions, overall, per condition and per "
            "condition x split. Table 8: each mental-model label's share (%) of a session's annotated actions, "
            "mean (SD) over sessions.",
        ),
        tables=(
            Table(
                "table1_actions_per_session",
                "Table 1: actions per session",
                table1(stats).rename(columns=group_label),
                index=True,
            ),
            Table(
                "table8_mental_model_labels",
                "Table 8: mental-model labels",
                table8(stats).rename(columns=group_label),
                index=True,
            ),
        ),
    )


def _outcomes(scope: svc.Scope) -> Section:
    sessions = svc.selected_sessions(scope)
    results = svc.session_outcomes(scope, OUTCOME_TEST)
    data = sessions[["session_id", "condition", "split", "final_accuracy", "route_coverage", "distance_weighted"]]
    return Section(
        "Task outcomes by condition",
        (
            "Each point is a session. Final accuracy: share of the drawn cells on the route; route coverage: share "
            "of the route drawn; distance-weighted score: drawn cells scored by their distance to the route. The "
            "difference between conditions by Welch's t-test, with an effect size and its interval.",
        ),
        tables=(
            Table(
                "outcome_tests",
                "Outcomes by condition, with the test of the difference",
                outcome_numbers(results),  # numbers (the CSV); the page's wording is the view
                view=outcome_table(results, OUTCOME_TEST),
            ),
        ),
        figures=(Figure("session_outcomes", "Outcomes per session by condition", outcome_figure(sessions), data, 2),),
    )


def _agreement(corpus: Corpus) -> Section | None:
    if SCHEME not in set(corpus.labels["scheme"]):
        return None
    labels = corpus.coded(SCHEME)
    models = set(corpus.model_coders(SCHEME))
    people = sorted(c for c in labels["coder"].unique() if c not in models)
    if len(people) < 2:
        return None
    rep = agreement_svc.dataset_report(corpus, SCHEME, people, None)
    return Section(
        "Agreement among the coders of grounding acts",
        (
            f"People pooled: {', '.join(people)}"
            + (f"; model coders compared apart, never pooled: {', '.join(sorted(models))}." if models else "."),
            rep.summary("the dataset's labels"),
        ),
        tables=(
            Table(
                "agreement",
                "Agreement statistics (nominal), with n and interval",
                rep.to_frame(),
                view=pd.DataFrame(
                    [
                        {
                            "statistic": e.row().get("name", ""),
                            "estimate": fmt(e.estimate),
                            "95% interval": fmt_ci(e),
                            "n": f"{fmt_count(e.n)} {e.n_of}",
                            "interval": e.interval_method,
                        }
                        for e in rep.statistics_rows()[: len(rep.statistics)]
                    ]
                ),
            ),
        ),
    )


def _test_lines(test) -> tuple[str, ...]:
    if isinstance(test, Undefined):
        return (f"Test of independence: {test}.",)
    chi2, v, vc = test.chi2, test.cramers_v, test.cramers_v_corrected
    return (
        f"Pearson's chi-square test of independence of condition and act: {fmt_test(chi2)}, {p_clause(chi2.p_value)}, "
        f"on {fmt_count(chi2.n)} coded actions in {test.n_sessions} sessions (actions taken as independent); permutation "
        f"p {fmt_p(test.permutation_p)} with condition labels shuffled across sessions {fmt_count(test.n_permutations)} "
        "times (seed 0).",
        f"Cramér's V {fmt(v.estimate, 2)}, {fmt_ci(v)} (session bootstrap); bias-corrected {fmt(vc.estimate, 2)}, {fmt_ci(vc)}.",
        "Numbers above the acts in the figure: adjusted standardized residuals of the visible condition.",
    )


def _acts(scope: svc.Scope) -> Section | None:
    result = svc.acts_by_condition(scope)
    if result is None:
        return None
    shares, by_act, test = result
    sources = act_sources(scope.corpus, scope.gold)
    figures = [
        Figure(
            "grounding_acts_by_condition", "Fig. 3: grounding acts by condition", act_share_figure(shares, test), shares
        )
    ]
    if not by_act.empty:
        figures.append(
            Figure(
                "alignment_within_acts",
                "Fig. 4 (left): partner judged on the same page, within each act",
                alignment_by_act_figure(by_act),
                by_act,
            )
        )
    return Section(
        "Grounding acts by condition",
        (f"Grounding acts from: {sources.get(scope.acts or '', scope.acts)}.", *_test_lines(test)),
        figures=tuple(figures),
    )


def _alignment(scope: svc.Scope) -> Section:
    progress = svc.default_progress(scope.corpus)
    name = svc.PROGRESS_KINDS[progress]
    measures = list(svc.MEASURES)
    curves = svc.progress_curves(scope, progress, BINS)
    fit = svc.fit_model(scope, measures[0], progress)
    lines = [
        f"Progress: {name}, in {BINS} equal bins. Each point: the share of labelled actions whose label is the "
        "grounded one, with a Wilson 95% interval (actions taken as independent; the model accounts for sessions).",
    ]
    tables = []
    if isinstance(fit, Undefined):
        lines.append(f"Model: {fit}.")
    elif fit.few_clusters:
        lines.append(f"Model: {fit.few_clusters}; not reported.")
    else:
        lines.append(summary_sentence(fit, name))
        lines.append(
            f"{svc.METHODS[fit.method]} on {fmt_count(fit.n)} labelled actions in {fit.n_sessions} sessions: {fit.inference}."
        )
        tables.append(
            Table(
                "progress_model",
                f"The model of '{svc.MEASURES[measures[0]]}' over {name}",
                fit.table(),  # numbers (the CSV); the page's wording is the view
                view=model_rows(fit),
            )
        )
    dyad_curves, overall, dyad_test = svc.dyad_alignment(scope, progress, BINS)
    lines.append(
        "Dyadic alignment (Guide and Follower report the same team goal): " + dyad_summary(overall, dyad_test) + "."
    )
    return Section(
        "Alignment over task progress by condition",
        tuple(lines),
        tables=tuple(tables),
        figures=(
            Figure(
                "alignment_over_progress",
                "Fig. 4 (right): grounded labels over task progress",
                progress_figure(curves, measures, progress),
                curves,
                2,
            ),
            Figure(
                "dyadic_alignment",
                "Dyadic alignment over task progress",
                dyad_figure(dyad_curves, progress),
                dyad_curves,
            ),
        ),
    )


def _why_not(scope: svc.Scope) -> Section | None:
    progress = svc.default_progress(scope.corpus)
    shares, _curves, tests = svc.misalignment_reasons(scope, progress, BINS)
    if shares.empty:
        return None
    figures = [
        Figure("misalignment_reasons", "Reasons given with 'not on the same page'", reason_share_figure(shares), shares)
    ]
    lines = [
        "Share of the not-aligned actions citing each reason (several may be cited), with Wilson 95% intervals. "
        + reason_tests_sentence(tests)
    ]
    before = svc.acts_before(scope, LOOK_BACK)
    if before is not None and not before.empty:
        figures.append(
            Figure(
                "acts_before_alignment_reports",
                "The grounding act before an alignment report",
                acts_before_figure(before),
                before,
            )
        )
        lines.append(
            f"The act before a report: the latest coded act among the {LOOK_BACK} actions before it. "
            + acts_before_sentence(svc.acts_before_test(before)[0])
        )
    return Section("Why not aligned", tuple(lines), figures=tuple(figures))


def _leaderboards(corpus: Corpus, reference: Reference | None = None) -> Section | None:
    runs = [r for r in corpus.predictions.values() if r.ok]
    if not runs:
        return None
    cmp = compare_svc.comparison(corpus, runs)
    tables = []
    all_cells = []
    for task, title in LEADERBOARDS.items():
        lb = cmp.leaderboard(task, "accuracy")
        all_cells.append(lb.cells)
        hidden = lb.undefined_groups()
        for label, cells, best in lb.blocks():
            if label in hidden:
                continue
            shown = cells.astype(str).where(~best, cells.astype(str) + " *")
            tables.append(
                Table(f"{task}_{file_part(label)}", f"{title}: {label}", shown.reset_index(names="run"), view=None)
            )
        tables.append(
            Table(f"{task}_leaderboard", f"{title}: every score with its interval", lb.csv_table(), view=pd.DataFrame())
        )
    lines = [
        f"{len(runs)} run(s) of the dataset's predictions/ folder, scored as the ALMANAC benchmark does. Each cell: "
        "score (n items); * marks the best run in its column and every run the paired test does not separate from it "
        "(McNemar's exact test on the items both predicted, Holm-adjusted over the column's tests). The CSV of each "
        "task holds every score with its interval.",
        standing_sentence(compare_svc.split_standing(corpus).result(), CONDITION_NAMES),
    ]
    if reference is not None and reference.models:
        beside = model_comparison(
            pd.concat(all_cells, ignore_index=True),
            {r.run_id: (r.info.model, r.info.name, r.info.setting) for r in runs},
            reference,
        )
        if beside.empty:
            lines.append(
                f"No run names a model of {reference.name}'s Tables 2 and 3 ({', '.join(reference.models)}) in its "
                "model.json, so none is set beside the published scores."
            )
        else:
            tables.append(Table("models_beside_published", f"Runs beside {reference.name}'s Tables 2 and 3", beside))
    return Section("Models against people", tuple(lines), tables=tuple(tables))


def provenance(
    corpus: Corpus, scope: svc.Scope, command: str, when: datetime | None = None, reference: Reference | None = None
) -> dict[str, str]:
    """What made the report: the data, the label sources and choices, the seeds, the software."""
    sources = act_sources(corpus, scope.gold)
    choices = {
        "mental models from": "the participants' annotations",
        "grounding acts from": sources.get(scope.acts or "", "none"),
        "codebooks": codebooks_used(set(corpus.labels["scheme"])),
        "label schema": f"version {LABEL_SCHEMA_VERSION} (the mental-model labels, Table 5 of the ALMANAC paper)",
        "filters": "none (every session, both roles, every condition and split)",
        "progress": f"{svc.PROGRESS_KINDS[svc.default_progress(corpus)]}, {BINS} bins",
    }
    extra = {"published values": f"{reference.name}: {reference.source}"} if reference is not None else None
    return provenance_block(
        corpus.info.name,
        corpus.content_hash,
        bool(corpus.info.synthetic),
        command,
        when,
        choices=choices,
        seeds="0 for every bootstrap and permutation",
        extra=extra,
    )


def _beside(corpus: Corpus, ref: Reference) -> Section:
    stats = overview.stats(corpus)
    how = basis(stats, ref)  # by split, or overall when the dataset records no split the reference reports
    table = comparison(stats, ref)
    return Section(
        f"Beside the published values: {ref.name}",
        (
            f"From {ref.source}. Each row: our mean (SD) over the group's sessions, the published one, and ours minus "
            "the published mean."
            + (
                " This dataset is synthetic: it imitates the study's design, not its numbers."
                if corpus.synthetic
                else ""
            ),
            how.sentence + " The table's column 'compared' says the same.",
        ),
        tables=(Table("beside_published", f"Ours beside {ref.name} ({how.how})", table),),
    )


def build(
    corpus: Corpus,
    *,
    gold: pd.DataFrame | None = None,
    command: str = "",
    when: datetime | None = None,
    reference: Reference | None = None,
    ahead: bool = False,
) -> Reproduction:
    """The report of ``corpus`` as the pages open on it (``gold``: the label store's revealed gold,
    when the app builds it; ``reference``: published values to set beside the dataset's; ``ahead``:
    start drawing the figures while the leaderboards are computed, for a report about to be written)."""
    scope = default_scope(corpus, gold)
    sections = [_dataset(corpus), _beside(corpus, reference) if reference is not None else None]
    sections += [_outcomes(scope), _agreement(corpus), _acts(scope), _alignment(scope), _why_not(scope)]
    drawn = draw_ahead((f.name, f.figure, f.columns) for s in sections if s for f in s.figures) if ahead else {}
    sections.append(_leaderboards(corpus, reference))
    return Reproduction(
        f"Reproduction report: {corpus.info.name}",
        bool(corpus.info.synthetic),
        tuple(s for s in sections if s is not None),
        provenance(corpus, scope, command, when, reference),
        drawn,
    )


__all__ = ["Figure", "Reproduction", "Section", "Table", "build", "default_scope", "provenance", "Test"]


# -- the other domains ----------------------------------------------------------------------------


def build_kitchen(kitchen: KitchenCorpus, *, command: str = "", when: datetime | None = None) -> Reproduction:
    """The report of kitchen runs as the Kitchen screen opens on them (level-normalized window, every
    scaffold): the coordination metrics per directed pairing (each agent's scaffold with its model),
    per scaffold and per level, the paper's Table 4 view, and the outcome composition (Fig. 3)."""
    metrics = kitchen_svc.metrics(kitchen, KITCHEN_WINDOW)
    levels = sorted({m.level for m in metrics if m.level is not None})
    loose = sum(m.unstructured for m in metrics)
    lines = (
        f"{fmt_count(len(kitchen.runs))} runs in {len({m.pairing for m in metrics})} directed pairings (each agent's "
        f"scaffold and model, Chef -> Assistant), levels {', '.join(map(str, levels)) or 'unknown'}; "
        f"{fmt_count(sum(m.requests for m in metrics))} request units; {fmt_count(loose)} unstructured messages (no "
        f"request unit read from them, left out of FollowRate); {fmt_count(sum(m.success for m in metrics))} of "
        f"{fmt_count(len(metrics))} runs succeeded.",
        "Each request unit coded by the TGCO audit's decision rule with the level-normalized acceptance window "
        "(0.15 x the mean episode length of the run's level). Each metric: the mean over runs, its 95% interval over "
        "runs (percentile bootstrap, 2,000 resamples, seed 0) and n, the runs with a value; success: the share of runs "
        "with its Wilson interval. ! marks an estimate that rests on fewer than 10 units or whose interval has no "
        "width (the warnings column says which).",
    )
    tables = []
    for by in ("pairing", "scaffold", "level"):
        table = kitchen_svc.metric_table(kitchen, KITCHEN_WINDOW, (by,))
        tables.append(
            Table(
                f"kitchen_metrics_by_{by}",
                f"Coordination metrics per {by}",
                pd.DataFrame(table.rows),
                view=metric_view(table, (by,)),
            )
        )
    table4 = kitchen_svc.table4(kitchen, KITCHEN_WINDOW)
    tables.append(
        Table(
            "kitchen_table4",
            "Success and ADR by task level under each scaffold (Table 4)",
            pd.DataFrame(table4.rows),
            view=table4_view(table4),
        )
    )
    comp = kitchen_svc.composition(kitchen, KITCHEN_WINDOW)
    return Reproduction(
        f"Report: {kitchen.info.name}",
        bool(kitchen.info.synthetic),
        (
            Section("Kitchen runs (Collab-Overcooked)", lines, tables=tuple(tables)),
            Section(
                "What became of the requests, by task level",
                (
                    "Share of the request units of each outcome, units pooled over the level's runs (the count in each bar).",
                ),
                figures=(
                    Figure("tgco_outcome_composition", "TGCO outcomes by task level", composition_figure(comp), comp),
                ),
            ),
        ),
        provenance_block(
            kitchen.info.name,
            kitchen.content_hash,
            bool(kitchen.info.synthetic),
            command,
            when,
            choices={"acceptance window": "level-normalized (0.15 x episode length)"},
            seeds="0 for every bootstrap",
        ),
    )


def build_benchmark(bench: Benchmark, *, command: str = "", when: datetime | None = None) -> Reproduction:
    """The report of a benchmark's runs as Compare opens on them: accuracy overall and by each slice,
    the best marked as McNemar's test allows, with intervals over the benchmark's clusters."""
    if bench.kind == "synchtom":  # judged on each item's rubric: its runs' scores per dimension
        return _build_rubric_benchmark(bench, command=command, when=when)
    cmp = compare_svc.benchmark_comparison(bench)
    tables = []
    for by in cmp.slice_fields:
        cells, table, best = leaderboard_frame(cmp, by)
        shown = table.astype(str).where(~best, table.astype(str) + " *")
        tables.append(
            Table(
                f"benchmark_accuracy_{by}",
                f"Accuracy by {by}",
                cells.drop(columns="text"),
                view=shown.reset_index(names="run"),
            )
        )
    n_items = len(bench.items)
    return Reproduction(
        f"Report: {bench.name}",
        bool(bench.synthetic),
        (
            Section(
                "Models on the benchmark",
                (
                    f"{fmt_count(n_items)} questions in {fmt_count(bench.items[bench.cluster].nunique())} {bench.cluster}s; "
                    f"{len(cmp.run_ids)} run(s). Each cell: accuracy [95% interval]; * marks the best run in its column "
                    "and every run McNemar's exact test, Holm-adjusted over the column, does not separate from it.",
                ),
                tables=tuple(tables),
            ),
        ),
        _bench_provenance(bench, command, when),
    )


def _bench_provenance(bench: Benchmark, command: str, when: datetime | None):
    """The provenance block of a benchmark's report (no choices to name; every bootstrap seeded 0)."""
    return provenance_block(
        bench.name, bench.content_hash, bool(bench.synthetic), command, when, choices={}, seeds="0 for every bootstrap"
    )


def _build_rubric_benchmark(bench: Benchmark, *, command: str, when: datetime | None) -> Reproduction:
    """The report of a benchmark judged on rubrics (SynchToM) as Compare shows it: each judged run's
    scores per dimension as the paper's Table 3, a table per judge."""
    from components.compare.benchmark import rubric_scores_frame

    judges = sorted({r.judge for r in bench.judged})
    tables = []
    for k, judge in enumerate(judges, start=1):
        scores, table = rubric_scores_frame(bench, judge)
        tables.append(Table(f"synchtom_scores_{k}", f"Scores per dimension, judge {judge}", scores, view=table))
    return Reproduction(
        f"Report: {bench.name}",
        bool(bench.synthetic),
        (
            Section(
                "Models on the benchmark",
                (
                    f"{fmt_count(len(bench.items))} items; {len(bench.judged)} judged run(s). Each cell: the mean over "
                    "the benchmark file's items of the criteria met as a share of the item's rubric's criteria, in "
                    "percent; AVG: the mean of the three dimensions, as in the SynchToM paper's Table 3.",
                ),
                tables=tuple(tables),
            ),
        ),
        _bench_provenance(bench, command, when),
    )


@dataclass(frozen=True)
class DomainReport:
    """How the report of a dataset of one domain is made: its builder (called with the dataset and
    the keywords ``gold``, ``command``, ``reference`` and ``ahead``), and whether it reads the gold of
    the team's revealed coding tasks and published values to set beside its numbers."""

    build: Callable[..., Reproduction]
    gold: bool = False
    reference: bool = False


# Each domain's report, by the name of its registry entry (corpus.domain); a domain named nowhere
# here has no report (the Report screen is not among its screens).
REPORTS: dict[str, DomainReport] = {
    MAP_TASK: DomainReport(build, gold=True, reference=True),
    "kitchen": DomainReport(lambda data, *, command, **_: build_kitchen(data, command=command)),
    "benchmark": DomainReport(lambda data, *, command, **_: build_benchmark(data, command=command)),
}


def report_of(data: Dataset) -> DomainReport:
    """How the report of ``data`` is made (ValueError for a domain with no report)."""
    found = REPORTS.get(data.domain)
    if found is None:
        raise ValueError(f"no report is made of {registry.of(data).title}")
    return found


def build_for(
    data: Dataset,
    *,
    gold: pd.DataFrame | None = None,
    command: str = "",
    reference: Reference | None = None,
    ahead: bool = False,
) -> Reproduction:
    """The report of any dataset the app opens, by its domain's builder (:data:`REPORTS`)."""
    return report_of(data).build(data, gold=gold, command=command, reference=reference, ahead=ahead)
