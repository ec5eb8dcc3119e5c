"""Does alignment rise with task progress, and differently in one condition than in the other?

A logistic model of a grounded indicator y (0/1 per annotated action) on progress p (0 to 1),
condition v (1 = the design's treatment: ``visible`` when the design is whether the Guide sees the
Follower's canvas, ``eye_contact`` in the HCRC design) and their interaction:

    logit P(y = 1) = b0 + b1 p + b2 v + b3 p v

With the interaction in the model, b1 is the progress slope in the reference condition
(``not_visible``) only and b2 the condition difference at progress 0 only, so the coefficients are not what a reader means by
"the effect of progress". :func:`fit_progress_model` reports the quantities a reader means, each
a linear contrast of the coefficients with its 95% interval and p-value from the same covariance:

- the progress slope in each condition (b1; b1 + b3), on the log-odds scale from progress 0 to 1;
- the condition difference (treatment - reference, e.g. visible - not visible) inside the observed
  range of progress: b2 + b3 p at the 10th, 50th and 90th percentiles of the progress of the
  modelled actions (not at 0 % and 100 %, which no session may reach: a difference there would be an
  extrapolation);
- the interaction (b3: how much the slopes differ);
- the joint Wald test that progress has no effect in either condition (b1 = b3 = 0).

Two estimators (statsmodels), both with errors that allow any correlation within a session:

- ``glm``: the logistic GLM with cluster-robust (sandwich) covariance by session. With fewer than
  40 sessions the small-sample version is used: t-based inference with G - 1 degrees of freedom
  (G sessions; ``use_t=True``) on the covariance with statsmodels' default G/(G-1)(N-1)/(N-K)
  correction, and an F test for the joint Wald test.
- ``gee``: generalized estimating equations with an exchangeable working correlation within each
  session and the robust covariance; with fewer than 40 sessions the bias-reduced covariance of
  Mancl & DeRouen (2001) (``cov_type="bias_reduced"``), normal-based intervals and a chi-square
  Wald test.

When the model cannot be fitted the result is :class:`corpus.values.Undefined` with the reason.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import cast

import numpy as np
import pandas as pd
from statsmodels.genmod import cov_struct, families
from statsmodels.genmod.generalized_estimating_equations import GEE
from statsmodels.genmod.generalized_linear_model import GLM

from analysis.alignment import MEASURES, grounded_indicators
from analysis.format import csv_cells, fmt, fmt_range, fmt_test, p_clause, package_version
from analysis.results import NO_DOF, Test
from corpus import schema
from corpus.values import Undefined

METHODS = {
    "glm": "Logistic GLM, session-clustered errors",
    "gee": "GEE, exchangeable within sessions",
}
FEW_SESSIONS = 40
# Below this many sessions in a condition, session-clustered errors rest on too few clusters to be
# trusted even with the small-sample corrections (t with G - 1 df, Mancl-DeRouen): the model is
# reported as not reliably estimable, and shown only on request.
MIN_SESSIONS_PER_CONDITION = 5


def _word(condition: str) -> str:
    return condition.replace("_", " ")


def terms(design: tuple[str, str]) -> dict[str, str]:
    """The model's terms and what each means, for the design (reference, treatment)."""
    ref, treat = (_word(c) for c in design)
    return {
        "Intercept": f"log-odds in {ref} at progress 0",
        "progress": f"progress slope in {ref} (the reference condition)",
        design[1]: f"{treat} - {ref} at progress 0",
        f"progress:{design[1]}": f"slope in {treat} - slope in {ref}",
    }


# Where the condition difference is reported: percentiles of the observed progress.
PERCENTILES = (10, 50, 90)


def _ordinal(k: int) -> str:
    return f"{k}{'th' if 10 <= k % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(k % 10, 'th')}"


@dataclass(frozen=True)
class ProgressModel:
    measure: str
    method: str  # "glm" or "gee"
    design: tuple[str, str]  # (reference, treatment) conditions
    n: int
    n_sessions: int
    small_sample: bool
    inference: str  # how intervals and tests were made, in words
    package: str  # statsmodels and its version
    coefficients: pd.DataFrame  # term, meaning, coef, se, stat, p, ci_low, ci_high
    effects: tuple[Test, ...]  # slopes, differences, interaction (log-odds scale), each tested against 0
    joint: Test  # the Wald test of progress (b1 = b3 = 0)
    progress_range: tuple[float, float]
    warnings: tuple[str, ...] = ()
    sessions_per_condition: tuple[int, int] = (0, 0)  # (reference, treatment)

    @property
    def few_clusters(self) -> str | None:
        """Why the model is not reliably estimable (too few sessions in a condition), or None."""
        least = min(self.sessions_per_condition)
        if least >= MIN_SESSIONS_PER_CONDITION:
            return None
        per = ", ".join(f"{n} {_word(c)}" for c, n in zip(self.design, self.sessions_per_condition))
        return (
            f"not reliably estimable: {per} sessions; session-clustered errors need at least "
            f"{MIN_SESSIONS_PER_CONDITION} sessions in each condition"
        )

    def effect(self, name: str) -> Test:
        """An effect (or the joint test) by its name or key."""
        for e in (*self.effects, self.joint):
            if name in (e.statistic, e.key):
                return e
        raise KeyError(name)

    def table(self) -> pd.DataFrame:
        """The effects and the joint test, one row each, with odds ratios (undefined cells empty)."""
        df = csv_cells(pd.DataFrame([e.row() for e in (*self.effects, self.joint)]))
        is_logodds = df["statistic"] != self.joint.key
        for col, out in (("estimate", "odds_ratio"), ("ci_low", "or_low"), ("ci_high", "or_high")):
            df[out] = np.where(is_logodds, np.exp(pd.to_numeric(df[col], errors="coerce")), np.nan)
        return df


def _design(actions: pd.DataFrame, measure: str, progress_col: str, design: tuple[str, str]) -> pd.DataFrame:
    actions = actions[actions["condition"].isin(design)]
    y = grounded_indicators(actions)[measure]
    df = pd.DataFrame(
        {
            "y": y.to_numpy(),
            "p": actions[progress_col].to_numpy(dtype=float),
            "v": (actions["condition"] == design[1]).to_numpy(dtype=float),
            "session": _numbered(actions["session_id"]),
        }
    )
    return df.dropna()


def _numbered(sessions: pd.Series) -> np.ndarray:
    """Each action's session as a number (in the order sessions first appear; NaN where it has
    none): the same groups as the names, counted without a text per action."""
    codes = pd.factorize(sessions)[0].astype(float)
    codes[codes < 0] = np.nan
    return codes


def _why_not(df: pd.DataFrame) -> Undefined | None:
    if len(df) < 30:
        return Undefined(f"only {len(df)} labelled actions with a progress value (30 needed)")
    if df["y"].nunique() < 2:
        return Undefined("every action has the same value")
    if df["v"].nunique() < 2:
        return Undefined("only one condition is present")
    n_sessions = df.groupby("v")["session"].nunique()
    if (n_sessions < 2).any():
        return Undefined("each condition needs at least 2 sessions for session-clustered errors")
    if df.groupby("v")["p"].nunique().min() < 2:
        return Undefined("progress does not vary within a condition")
    return None


def _terms(p: pd.Series, v: pd.Series, treatment: str) -> pd.DataFrame:
    return pd.DataFrame({"Intercept": 1.0, "progress": p, treatment: v, f"progress:{treatment}": p * v})


def _fit(df: pd.DataFrame, method: str, small: bool, treatment: str):
    X = _terms(df["p"], df["v"], treatment)
    groups = pd.factorize(df["session"])[0]
    fam = families.Binomial()
    start = _grouped_estimates(df, treatment)
    if method == "glm":
        return GLM(df["y"], X, family=fam).fit(
            start_params=start, cov_type="cluster", cov_kwds={"groups": groups}, use_t=small
        )
    if method == "gee":
        model = GEE(df["y"], X, groups=groups, family=fam, cov_struct=cov_struct.Exchangeable())
        return model.fit(start_params=start, cov_type="bias_reduced" if small else "robust")
    raise ValueError(f"method must be one of {', '.join(METHODS)}, not {method!r}")


GROUPED_SHARE = 2  # the fit starts from the grouped estimates when there are at most 1 group per this many actions


def _grouped_estimates(df: pd.DataFrame, treatment: str) -> np.ndarray | None:
    """The logistic model's estimates from the actions grouped by (progress, condition): a binomial
    count per group (statsmodels GLM), or None where that gains nothing (fewer than two actions a
    group) or does not converge to finite estimates.

    The grouped likelihood is the actions' likelihood up to a constant, so it has the same maximum:
    the fit on the actions starts there and its iterations only confirm it (one, where it would
    otherwise take about five over every action; a million actions hold some 60,000 groups). A
    GEE starts there too, as it would from its own independence fit of the actions. The fit on
    the actions is still the one reported, with its covariance; a test holds its estimates to a
    fit started from zero."""
    counts = df.groupby(["p", "v"], sort=False)["y"].agg(["sum", "count"])
    if len(counts) * GROUPED_SHARE > len(df):
        return None
    p, v = (counts.index.get_level_values(k).to_numpy(dtype=float) for k in ("p", "v"))
    k, n = counts["sum"].to_numpy(dtype=float), counts["count"].to_numpy(dtype=float)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (the fit on the actions says what is wrong)
        try:
            res = GLM(
                np.column_stack([k, n - k]), _terms(pd.Series(p), pd.Series(v), treatment), family=families.Binomial()
            ).fit()
        except (np.linalg.LinAlgError, ValueError):
            return None
    params = np.asarray(res.params, dtype=float)
    return params if res.converged and np.all(np.isfinite(params)) else None


def _inference(method: str, small: bool, n_sessions: int) -> str:
    if method == "glm":
        base = "logistic GLM (statsmodels GLM, binomial), cluster-robust covariance by session"
        if small:
            return (
                f"{base}; small-sample correction for {n_sessions} sessions (< {FEW_SESSIONS}): "
                f"t-based intervals and tests with {n_sessions - 1} df, F test for the joint Wald test"
            )
        return f"{base}; normal-based intervals, chi-square Wald test"
    base = "GEE (statsmodels GEE, binomial, exchangeable working correlation)"
    if small:
        return (
            f"{base}; small-sample correction for {n_sessions} sessions (< {FEW_SESSIONS}): Mancl-DeRouen "
            "bias-reduced robust covariance, normal-based intervals, chi-square Wald test"
        )
    return f"{base}; robust covariance, normal-based intervals, chi-square Wald test"


def _contrast(res, key: str, name: str, L: list[float], n: int, inference: str, warn: tuple[str, ...] = ()) -> Test:
    t = res.t_test(np.atleast_2d(L))
    lo, hi = np.asarray(t.conf_int(alpha=0.05)).ravel()
    student = t.distribution == "t"
    return Test(
        key=key,
        statistic=name,
        estimate=float(np.ravel(t.effect)[0]),
        n=n,
        n_of="labelled actions",
        method="linear contrast of the model's coefficients (log-odds), tested against 0",
        computed_by=f"statsmodels {type(res.model).__name__} t_test",
        package="statsmodels",
        se=float(np.ravel(t.sd)[0]),
        interval=(float(lo), float(hi)),
        interval_method=inference,
        distribution="t" if student else "z",
        test_statistic=float(np.ravel(t.tvalue)[0]),
        dof=float(t.df_denom) if student else NO_DOF,
        p_value=float(np.ravel(t.pvalue)[0]),
        warnings=warn,
    )


def fit_progress_model(
    actions: pd.DataFrame,
    measure: str = "aligned",
    progress_col: str = "progress",
    method: str = "glm",
    small_sample: bool | None = None,
    design: tuple[str, str] = schema.CANVAS,
) -> ProgressModel | Undefined:
    """Fit the model of ``measure`` on ``progress_col`` x condition (see the module docstring), the
    condition being the ``design``'s (reference, treatment).

    ``small_sample=None`` applies the small-sample correction when there are fewer than 40
    sessions. Returns Undefined with the reason when the data cannot carry the model.
    """
    if method not in METHODS:
        raise ValueError(f"method must be one of {', '.join(METHODS)}, not {method!r}")
    df = _design(actions, measure, progress_col, design)
    why = _why_not(df)
    if why is not None:
        return why
    n_sessions = int(df["session"].nunique())
    small = n_sessions < FEW_SESSIONS if small_sample is None else bool(small_sample)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            res = _fit(df, method, small, design[1])
        except (np.linalg.LinAlgError, ValueError) as exc:
            return Undefined(f"the model could not be fitted ({exc})")
    warn = tuple(
        sorted(
            {
                str(w.message).split("\n")[0]
                for w in caught
                if issubclass(w.category, (RuntimeWarning, UserWarning))
                or "Convergence" in w.category.__name__
                or "Separation" in w.category.__name__
            }
        )
    )
    if not np.all(np.isfinite(res.params)) or not np.all(np.isfinite(np.diag(res.cov_params()))):
        return Undefined("the fit gave no finite estimates (perfect separation?)")
    text = _inference(method, small, n_sessions)
    n = len(df)
    lo_p, hi_p = float(df["p"].min()), float(df["p"].max())
    ref, treat = design
    effects = [
        _contrast(res, f"slope_{ref}", f"progress slope, {_word(ref)}", [0, 1, 0, 0], n, text),
        _contrast(res, f"slope_{treat}", f"progress slope, {_word(treat)}", [0, 1, 0, 1], n, text),
    ]
    for k, p in zip(PERCENTILES, np.percentile(df["p"].to_numpy(), PERCENTILES)):
        effects.append(
            _contrast(
                res,
                f"difference_p{k}",
                f"{_word(treat)} - {_word(ref)} at progress {float(p):.0%} ({_ordinal(k)} percentile)",
                [0, 0, 1, float(p)],
                n,
                text,
            )
        )
    effects.append(
        _contrast(res, "interaction", f"interaction (slope {_word(treat)} - slope {_word(ref)})", [0, 0, 0, 1], n, text)
    )
    wald = res.wald_test(np.array([[0, 1, 0, 0], [0, 0, 0, 1]]), use_f=(method == "glm" and small), scalar=True)
    f_test = wald.distribution == "F"
    joint = Test(
        key="joint_wald",
        statistic="joint Wald test of progress (both slopes 0)",
        estimate=float(wald.statistic),
        n=n,
        n_of="labelled actions",
        method=f"{text}; {'F' if f_test else 'chi-square'} test",
        computed_by=f"statsmodels {type(res.model).__name__} wald_test",
        package="statsmodels",
        distribution="F" if f_test else "chi2",
        p_value=float(wald.pvalue),
        dof=(float(wald.df_num), float(wald.df_denom)) if f_test else float(wald.df_denom),
    )
    ci = np.asarray(res.conf_int())
    coefficients = pd.DataFrame(
        {
            "term": list(terms(design)),
            "meaning": list(terms(design).values()),
            "coef": np.asarray(res.params),
            "se": np.asarray(res.bse),
            "stat": np.asarray(res.tvalues),
            "p": np.asarray(res.pvalues),
            "ci_low": ci[:, 0],
            "ci_high": ci[:, 1],
        }
    )
    return ProgressModel(
        measure=measure,
        method=method,
        design=design,
        n=n,
        n_sessions=n_sessions,
        small_sample=small,
        inference=text,
        package=f"statsmodels {package_version('statsmodels')}",
        coefficients=coefficients,
        effects=tuple(effects),
        joint=joint,
        progress_range=(lo_p, hi_p),
        warnings=warn,
        sessions_per_condition=(
            int(df.loc[df["v"] == 0, "session"].nunique()),
            int(df.loc[df["v"] == 1, "session"].nunique()),
        ),
    )


def _slope_words(e: Test) -> str:
    estimate, interval = cast(float, e.estimate), cast(tuple[float, float], e.interval)  # a fitted slope
    direction = "rise" if estimate > 0 else "fall"
    odds = tuple(np.exp(interval))
    return f"{direction} by a factor of {fmt(np.exp(estimate), 2)} (95% CI {fmt_range(odds, 2)}, {p_clause(e.p_value)})"


def summary_sentence(fit: ProgressModel, progress_name: str) -> str:
    """One plain paragraph saying what the model finds, for under its table."""
    label = MEASURES[fit.measure].lower()
    ref, treat = fit.design
    nv, v = fit.effect(f"slope_{ref}"), fit.effect(f"slope_{treat}")
    inter = fit.effect("interaction")
    diffs = [fit.effect(f"difference_p{k}") for k in PERCENTILES]
    at = ", ".join(f"{e.statistic.rsplit(' at progress ', 1)[1].split(' (')[0]}" for e in diffs)
    ratios = ", ".join(f"{fmt(np.exp(cast(float, e.estimate)), 2)} ({p_clause(e.p_value)})" for e in diffs)
    lo_p, hi_p = fit.progress_range
    verdict = "changes" if cast(float, fit.joint.p_value) < 0.05 else "does not detectably change"
    return (
        f"In {_word(treat)} sessions the odds of '{label}' {_slope_words(v)} per unit of {progress_name} (0 to 100 %); "
        f"in {_word(ref)} sessions they {_slope_words(nv)}. "
        f"Taken together, progress {verdict} the odds (joint Wald test of both slopes, {fmt_test(fit.joint)}, "
        f"{p_clause(fit.joint.p_value)}); the two slopes differ by {fmt(inter.estimate, 2, signed=True)} log-odds "
        f"(interaction, {p_clause(inter.p_value)}). "
        f"{_word(treat).capitalize()} vs {_word(ref)}, inside the observed progress ({lo_p:.0%} to {hi_p:.0%}) at its "
        f"{', '.join(_ordinal(k) for k in PERCENTILES[:-1])} and {_ordinal(PERCENTILES[-1])} percentiles ({at}): "
        f"odds ratio {ratios}."
    )
