"""The coordination metrics of kitchen runs (section 3.2 of "Beyond Task Success"), per run, then
per directed role pairing and per task level, with intervals over runs.

**Structured interdependence**: the triggers behind ADR, IDensity and MOR
(:mod:`analysis.kitchen.dependencies`).

**Per run** (:class:`RunMetrics`): the TGCO counts per outcome (:mod:`analysis.kitchen.tgco`), unstructured
messages and seek/deny/ack primitives; FollowRate = (N_eff + N_assist) / N_req; CommCost = tokens /
N_int; ADR, IDensity, MOR; verifier interventions (validator corrections) and format corrections per
episode; success, score, tokens (``KitchenRun.tokens``) and steps. A ratio with a zero denominator
is :class:`corpus.values.Undefined` with the reason (a run with no request has no FollowRate).

**Across runs** (:func:`metric_table`): each metric's mean over the runs of a group (directed
pairing with each agent's scaffold, model pairing, scaffold, level, recipe, or several), n the runs
with a value, and a 95% interval over runs: a percentile bootstrap (``scipy.stats.bootstrap``,
seeded) or a t interval (``scipy.stats.t.interval``, df = n - 1); success, a share of runs, with its
Wilson interval (:func:`share_of_runs`). An estimate that rests on fewer than :data:`MIN_UNITS`
units (:data:`UNITS`: request units for FollowRate, trigger actions for ADR and MOR, accepted
dependencies for IDensity and CommCost, runs for success) or whose interval has no width carries a
warning saying so. :func:`scaffold_table` is the paper's Table 4 view (success and ADR per model
pairing, scaffold and level). :func:`outcome_composition` gives the shares of Effective / Assisted /
Redundant / Ineffective units per level (the paper's Fig. 3, left) with their counts and Wilson
intervals, warned under :data:`MIN_UNITS` request units.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from analysis.kitchen.dependencies import Interdependence, interdependence
from analysis.kitchen.tgco import (
    ASSISTED,
    EFFECTIVE,
    INEFFECTIVE,
    LEVEL_WINDOW,
    OUTCOME_NAMES,
    OUTCOMES,
    REDUNDANT,
    Audit,
    Window,
    audit_run,
    level_lengths,
    task_objects,
)
from analysis.results import CONFIDENCE, Estimate, EstimateTable, wilson
from corpus.kitchen.run import KitchenRun
from corpus.values import Undefined

Value = float | Undefined
N_BOOT = 2000
INTERVALS = ("bootstrap", "t")
UNKNOWN_LEVEL = "unknown"


# -- per run -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RunMetrics:
    """Every coordination metric of one run, with the audit and the triggers behind them."""

    run_id: str
    pairing: str  # with each agent's scaffold (corpus.kitchen.run.KitchenRun.pairing)
    level: int | None
    recipe: str
    scaffold: str
    window: int
    window_rule: str
    effective: int
    assisted: int
    redundant: int
    ineffective: int
    requests: int
    unstructured: int
    messages: int
    seek: int
    deny: int
    ack: int
    n_trig: int
    n_int: int
    n_cons: int
    follow_rate: Value
    comm_cost: Value
    adr: Value
    idensity: Value
    mor: Value
    validator_corrections: int
    format_corrections: int
    success: bool
    score: float
    tokens: int
    steps: int
    audit: Audit
    dependencies: Interdependence
    models: str = ""  # the directed model pairing, scaffolds aside (KitchenRun.model_pairing)

    def value(self, key: str) -> Value:
        """A metric as a number (success as 1 or 0), or why it has none."""
        v = getattr(self, key)
        return v if isinstance(v, Undefined) else float(v)

    def units(self, key: str) -> int:
        """How many units a metric of this run rests on (:data:`UNITS`): request units, trigger actions
        or accepted dependencies; 1 (the run) for a metric of the run as a whole."""
        what = UNITS.get(key)
        return int(getattr(self, what[0])) if what else 1

    def row(self) -> dict[str, Any]:
        return {**{k: getattr(self, k) for k in RUN_KEYS}, **{k: getattr(self, k) for k in METRICS}}


RUN_KEYS = ("run_id", "pairing", "models", "scaffold", "level", "recipe", "window")


def run_metrics(
    run: KitchenRun, window: Window = LEVEL_WINDOW, *, lengths: Mapping[int, float] | None = None
) -> RunMetrics:
    """The metrics of one run (``lengths``: see :func:`analysis.kitchen.tgco.audit_run`)."""
    objects = task_objects(run)
    audit = audit_run(run, window, lengths=lengths, objects=objects)
    deps = interdependence(run, audit.window, objects)
    kinds = [c.kind for c in run.corrections]
    comm_cost: Value = (
        run.tokens / deps.n_int if deps.n_int else Undefined("no accepted dependency (N_int = 0) to spread tokens over")
    )
    return RunMetrics(
        run_id=run.id,
        pairing=run.pairing,
        level=run.level,
        recipe=run.recipe,
        scaffold=run.scaffold,
        window=audit.window,
        window_rule=audit.window_rule,
        effective=audit.counts[EFFECTIVE],
        assisted=audit.counts[ASSISTED],
        redundant=audit.counts[REDUNDANT],
        ineffective=audit.counts[INEFFECTIVE],
        requests=audit.n_requests,
        unstructured=len(audit.unstructured),
        messages=len(audit.messages),
        seek=audit.primitive_count("seek"),
        deny=audit.primitive_count("deny"),
        ack=audit.primitive_count("ack"),
        n_trig=deps.n_trig,
        n_int=deps.n_int,
        n_cons=deps.n_cons,
        follow_rate=audit.follow_rate,
        comm_cost=comm_cost,
        adr=deps.adr,
        idensity=deps.idensity,
        mor=deps.mor,
        validator_corrections=kinds.count("validator"),
        format_corrections=kinds.count("format"),
        success=bool(run.success),
        score=float(run.score),
        tokens=int(run.tokens),
        steps=run.n_steps,
        audit=audit,
        dependencies=deps,
        models=run.model_pairing,
    )


def kitchen_metrics(runs: Sequence[KitchenRun], window: Window = LEVEL_WINDOW) -> tuple[RunMetrics, ...]:
    """The metrics of each run; a level-normalized window uses the mean length of each level's
    runs among ``runs``."""
    lengths = level_lengths(runs)
    return tuple(run_metrics(r, window, lengths=lengths) for r in runs)


# The metrics averaged over runs: key -> (name, what n counts, what it is).
METRICS: dict[str, tuple[str, str, str]] = {
    "follow_rate": ("FollowRate", "runs with request units", "(N_eff + N_assist) / N_req per run"),
    "comm_cost": ("CommCost", "runs with an accepted dependency", "tokens / N_int per run"),
    "adr": ("ADR", "runs with a trigger action", "N_int / N_trig per run"),
    "idensity": ("IDensity", "runs with an accepted dependency", "N_cons / N_int per run"),
    "mor": ("MOR", "runs with a trigger action", "1 - ADR per run"),
    "effective": ("Effective units", "runs", "Effective request units per run"),
    "assisted": ("Assisted units", "runs", "Assisted request units per run"),
    "redundant": ("Redundant units", "runs", "Redundant request units per run"),
    "ineffective": ("Ineffective units", "runs", "Ineffective request units per run"),
    "requests": ("Request units", "runs", "N_req per run"),
    "unstructured": ("Unstructured messages", "runs", "unstructured messages per run"),
    "validator_corrections": ("Verifier interventions", "runs", "validator corrections per episode"),
    "format_corrections": ("Format corrections", "runs", "format corrections per episode"),
    "success": ("Success", "runs", "share of runs that delivered every order (Wilson interval over runs)"),
    "score": ("Score", "runs", "final score per run"),
    "tokens": ("Tokens per episode", "runs", "tokens per run"),
    "steps": ("Steps", "runs", "steps per run"),
}


# What a ratio rests on: the per-run count that is its denominator, and its name.
UNITS: dict[str, tuple[str, str]] = {
    "follow_rate": ("requests", "request units"),
    "comm_cost": ("n_int", "accepted dependencies"),
    "adr": ("n_trig", "trigger actions"),
    "mor": ("n_trig", "trigger actions"),
    "idensity": ("n_int", "accepted dependencies"),
}
MIN_UNITS = 10  # fewer units than this under a metric: a warning, as the Map Task pages give
PROPORTIONS = ("success",)  # shares of runs: a Wilson interval over runs, not a bootstrap


def runs_frame(metrics: Iterable[RunMetrics]) -> pd.DataFrame:
    """One row per run: its keys and every metric (undefined values stay :class:`Undefined`)."""
    rows = [m.row() for m in metrics]
    return pd.DataFrame(rows, columns=[*RUN_KEYS, *METRICS])


# -- across runs ---------------------------------------------------------------------------------


def _reasons(values: Sequence[Value]) -> list[str]:
    counts: dict[str, int] = {}
    for v in values:
        if isinstance(v, Undefined):
            counts[v.reason] = counts.get(v.reason, 0) + 1
    return [f"{n} run(s) left out: {why}" for why, n in counts.items()]


def mean_over_runs(
    values: Sequence[Value],
    *,
    key: str,
    statistic: str,
    n_of: str = "runs with a value",
    method: str = "",
    interval: str = "bootstrap",
    n_boot: int = N_BOOT,
    seed: int = 0,
    confidence: float = CONFIDENCE,
    units: tuple[int, str] | None = None,
) -> Estimate:
    """The mean of one value per run over the runs that have one, with an interval over runs:
    ``"bootstrap"``, the percentile bootstrap over runs (``scipy.stats.bootstrap``, ``n_boot``
    resamples, ``seed``), or ``"t"``, the t interval (``scipy.stats.t.interval``, df = n - 1, the
    standard error ``scipy.stats.sem``). Undefined values are left out and counted in the warnings;
    with none left the mean is undefined, with one the interval. ``units``: (how many, what) the
    values rest on, pooled over the runs (request units for FollowRate...): fewer than
    :data:`MIN_UNITS` is a warning; so is an interval of no width."""
    if interval not in INTERVALS:
        raise ValueError(f"the interval is one of {INTERVALS}, not {interval!r}")
    x = np.array([float(v) for v in values if not isinstance(v, Undefined)], dtype=float)
    n = len(x)
    warn = _reasons(values)
    how = (
        f"percentile bootstrap over runs, {n_boot} resamples, seed {seed} (scipy.stats.bootstrap)"
        if interval == "bootstrap"
        else "t interval over runs, df = n - 1, SE = sd / sqrt(n) (scipy.stats.t.interval)"
    )
    base: dict[str, Any] = dict(
        key=key,
        statistic=statistic,
        n=n,
        n_of=n_of,
        method=f"mean over runs of {method or statistic}",
        computed_by="numpy.mean",
        package="numpy",
        interval_method=how,
        confidence=confidence,
        warnings=tuple(warn),
    )
    if n == 0:
        why = "; ".join(w.split(": ", 1)[1] for w in warn) if warn else "no runs"
        return Estimate.undefined(f"no run has a value ({why})", **base)
    if units is not None and units[0] < MIN_UNITS:
        warn.append(few_units(*units))
        base["warnings"] = tuple(warn)
    mean = float(np.mean(x))
    if n == 1:
        one = Undefined("one run: no interval over runs")
        return Estimate(**base, estimate=mean, se=one, interval=one)
    if np.ptp(x) == 0:
        base["warnings"] = (*warn, ZERO_WIDTH)  # every run has the same value
        return Estimate(**base, estimate=mean, se=0.0, interval=(mean, mean))
    if interval == "t":
        se = float(stats.sem(x))
        lo, hi = stats.t.interval(confidence, n - 1, loc=mean, scale=se)
    else:
        boot = stats.bootstrap(
            (x,),
            np.mean,
            n_resamples=n_boot,
            confidence_level=confidence,
            method="percentile",
            vectorized=True,
            rng=np.random.default_rng(seed),
        )
        se = float(boot.standard_error)
        lo, hi = boot.confidence_interval.low, boot.confidence_interval.high
    if n < 5:
        warn.append(f"only {n} runs: the interval over runs is rough")
    if float(hi) - float(lo) <= 0:
        warn.append(ZERO_WIDTH)
    base["warnings"] = tuple(warn)
    return Estimate(**base, estimate=mean, se=se, interval=(float(lo), float(hi)))


ZERO_WIDTH = "zero-width interval: the runs' values do not vary, so the interval says nothing of the spread"


def few_units(n: int, what: str) -> str:
    return f"rests on {n} {what} (fewer than {MIN_UNITS})"


def share_of_runs(
    values: Sequence[Value], *, key: str, statistic: str, method: str, confidence: float = CONFIDENCE
) -> Estimate:
    """A share of runs (success) with its Wilson interval over runs (statsmodels); fewer than
    :data:`MIN_UNITS` runs is a warning."""
    x = [float(v) for v in values if not isinstance(v, Undefined)]
    est = wilson(
        int(sum(x)),
        len(x),
        key=key,
        statistic=statistic,
        n_of="runs",
        method=method,
        confidence=confidence,
        empty="no runs",
    )
    warns = list(est.warnings)
    if est.defined and len(x) < MIN_UNITS:
        warns.append(few_units(len(x), "runs"))
    if est.defined and isinstance(est.interval, tuple) and est.interval[1] - est.interval[0] <= 0:
        warns.append(ZERO_WIDTH)
    return replace(est, warnings=tuple(warns))


GROUPINGS = ("pairing", "models", "scaffold", "level", "recipe")
NOT_RECORDED = "(not recorded)"


def _group_key(m: RunMetrics, by: str) -> Any:
    if by == "level":
        return m.level if m.level is not None else UNKNOWN_LEVEL
    if by == "scaffold":
        return m.scaffold or NOT_RECORDED
    if by in GROUPINGS:
        return getattr(m, by)
    raise ValueError(f"runs are grouped by {', '.join(GROUPINGS)}, not {by!r}")


def _sort_key(values: tuple[Any, ...]) -> tuple[Any, ...]:
    return tuple((0, v, "") if isinstance(v, int) else (1, 0, str(v)) for v in values)


def groups(metrics: Iterable[RunMetrics], by: Sequence[str]) -> dict[tuple[Any, ...], list[RunMetrics]]:
    """The runs of each group (a tuple of the ``by`` keys' values), in sorted order of the keys."""
    out: dict[tuple[Any, ...], list[RunMetrics]] = {}
    for m in metrics:
        out.setdefault(tuple(_group_key(m, b) for b in by), []).append(m)
    return {k: out[k] for k in sorted(out, key=_sort_key)}


def metric_table(
    metrics: Iterable[RunMetrics],
    by: Sequence[str] = ("pairing",),
    keys: Sequence[str] = tuple(METRICS),
    *,
    interval: str = "bootstrap",
    n_boot: int = N_BOOT,
    seed: int = 0,
    confidence: float = CONFIDENCE,
) -> EstimateTable:
    """Each metric's mean over the runs of each group (``by``: "pairing", "models", "scaffold",
    "level", "recipe", or several), as rows keyed by the group and the metric; success, a share of
    runs, with its Wilson interval."""
    by, grouped = tuple(by), groups(metrics, by)
    items = []
    for group, runs in grouped.items():
        for key in keys:
            items.append(
                ({**dict(zip(by, group)), "metric": key}, _estimate(runs, key, interval, n_boot, seed, confidence))
            )
    windows = sorted({m.window_rule for ms in grouped.values() for m in ms})
    return EstimateTable.build(
        items,
        keys=(*by, "metric"),
        title=f"Coordination metrics per {' and '.join(by)}",
        notes=tuple(f"window: {w}" for w in windows),
    )


def _estimate(
    runs: Sequence[RunMetrics], key: str, interval: str, n_boot: int, seed: int, confidence: float
) -> Estimate:
    name, n_of, what = METRICS[key]
    values = [m.value(key) for m in runs]
    if key in PROPORTIONS:
        return share_of_runs(values, key=key, statistic=name, method=what, confidence=confidence)
    units = None
    if key in UNITS:
        units = (sum(m.units(key) for m in runs if not isinstance(m.value(key), Undefined)), UNITS[key][1])
    return mean_over_runs(
        values,
        key=key,
        statistic=name,
        n_of=n_of,
        method=what,
        interval=interval,
        n_boot=n_boot,
        seed=seed,
        confidence=confidence,
        units=units,
    )


TABLE4_KEYS = ("success", "adr")


def scaffold_table(
    metrics: Iterable[RunMetrics],
    keys: Sequence[str] = TABLE4_KEYS,
    *,
    interval: str = "bootstrap",
    n_boot: int = N_BOOT,
    seed: int = 0,
    confidence: float = CONFIDENCE,
) -> EstimateTable:
    """The paper's Table 4 view: success (Wilson, over runs) and ADR (mean over runs) per model
    pairing, scaffold and task level, so each scaffold is set beside the others on the same models."""
    metrics = list(metrics)
    table = metric_table(
        metrics,
        by=("models", "scaffold", "level"),
        keys=keys,
        interval=interval,
        n_boot=n_boot,
        seed=seed,
        confidence=confidence,
    )
    return replace(table, title="Success and ADR by task level under each scaffold (Table 4)")


def outcome_composition(
    metrics: Iterable[RunMetrics], by: Sequence[str] = ("level",), confidence: float = CONFIDENCE
) -> EstimateTable:
    """The shares of Effective, Assisted, Redundant and Ineffective request units per group (by
    default per level: Fig. 3, left), each with its count (column ``count``) and Wilson interval;
    unstructured messages are set apart (counted in the notes)."""
    by = tuple(by)
    items, notes = [], []
    for group, runs in groups(metrics, by).items():
        n = sum(m.requests for m in runs)
        where = ", ".join(f"{b} {g}" for b, g in zip(by, group))
        for outcome in OUTCOMES:
            k = sum(getattr(m, outcome) for m in runs)
            est = wilson(
                k,
                n,
                key=f"{outcome}_share",
                statistic=f"{OUTCOME_NAMES[outcome]} share",
                n_of="request units (unstructured messages set apart)",
                method=f"{OUTCOME_NAMES[outcome]} units / request units, pooled over the group's runs",
                confidence=confidence,
                empty="no request units",
            )
            if est.defined and n < MIN_UNITS:
                est = replace(est, warnings=(*est.warnings, few_units(n, "request units")))
            items.append(({**dict(zip(by, group)), "outcome": OUTCOME_NAMES[outcome], "count": k}, est))
        notes.append(f"{where}: {n} request units, {sum(m.unstructured for m in runs)} unstructured messages")
    notes.append(
        "units are pooled over runs; the Wilson interval treats them as independent, though units of one run are not"
    )
    return EstimateTable.build(items, keys=(*by, "outcome"), title="TGCO outcome composition", notes=notes)


__all__ = [
    "GROUPINGS",
    "MIN_UNITS",
    "UNITS",
    "scaffold_table",
    "share_of_runs",
    "RunMetrics",
    "run_metrics",
    "kitchen_metrics",
    "METRICS",
    "runs_frame",
    "mean_over_runs",
    "groups",
    "metric_table",
    "outcome_composition",
]
