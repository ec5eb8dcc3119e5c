"""The progress x condition model reports what a reader means, checked against statsmodels' own fits
of the same model written another way."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm

from analysis.progress_model import fit_progress_model, summary_sentence
from corpus.values import Undefined, is_defined

SLOPE_NV, SLOPE_V = 1.0, 2.5


def simulated(n_sessions: int = 30, n_actions: int = 60, seed: int = 0) -> pd.DataFrame:
    """Alignment rising with progress, faster when visible; a random offset per session."""
    rng = np.random.default_rng(seed)
    rows = []
    for s in range(n_sessions):
        visible = s % 2 == 1
        offset = rng.normal(0, 0.4)
        for i in range(n_actions):
            p = i / (n_actions - 1)
            logit = -1.0 + (SLOPE_V if visible else SLOPE_NV) * p + (0.3 if visible else 0.0) + offset
            rows.append(
                {
                    "session_id": f"s{s:02d}",
                    "condition": "visible" if visible else "not_visible",
                    "p": p,
                    "team_goal": "t3",
                    "partner_intent": "p1",
                    "self_reasoning": "r1",
                    "aligned": bool(rng.random() < 1 / (1 + np.exp(-logit))),
                }
            )
    return pd.DataFrame(rows)


def design(df: pd.DataFrame, reference: str, centre: float = 0.0) -> tuple[pd.Series, pd.DataFrame, np.ndarray]:
    """The same model with ``reference`` as the reference condition and progress centred at ``centre``."""
    other = (df["condition"] != reference).astype(float)
    p = df["p"] - centre
    X = pd.DataFrame({"const": 1.0, "p": p, "other": other, "p:other": p * other})
    return df["aligned"].astype(float), X, pd.factorize(df["session_id"])[0]


@pytest.fixture(scope="module")
def data() -> pd.DataFrame:
    return simulated()


def test_the_slope_in_each_condition_is_statsmodels_own_slope_with_that_condition_as_reference(data):
    fit = fit_progress_model(data, "aligned", "p", method="glm")
    assert fit.small_sample and fit.n == 1800 and fit.n_sessions == 30
    for cond, name in (("visible", "progress slope, visible"), ("not_visible", "progress slope, not visible")):
        y, X, groups = design(data, reference=cond)
        ref = sm.GLM(y, X, family=sm.families.Binomial()).fit(
            cov_type="cluster", cov_kwds={"groups": groups}, use_t=True
        )
        e = fit.effect(name)
        assert e.estimate == pytest.approx(ref.params["p"], rel=1e-8)
        lo, hi = ref.conf_int().loc["p"]
        assert (e.low, e.high) == (pytest.approx(lo, rel=1e-6), pytest.approx(hi, rel=1e-6))
        assert e.p_value == pytest.approx(ref.pvalues["p"], rel=1e-6)
        assert e.dof == 29.0  # t with G - 1 degrees of freedom
    # And they recover the slopes the data were made with.
    assert fit.effect("progress slope, not visible").estimate == pytest.approx(SLOPE_NV, abs=0.5)
    assert fit.effect("progress slope, visible").estimate == pytest.approx(SLOPE_V, abs=0.5)


@pytest.mark.parametrize("k", [10, 50, 90])
def test_the_condition_difference_inside_the_observed_progress_is_statsmodels_own_with_progress_centred(data, k):
    """The difference is reported at the 10th, 50th and 90th percentiles of the observed progress
    (never at 0 % or 100 %, outside what sessions reached): the model refitted with progress centred
    there has it as its condition coefficient."""
    fit = fit_progress_model(data, "aligned", "p")
    at = float(np.percentile(data["p"], k))
    y, X, groups = design(data, reference="not_visible", centre=at)
    ref = sm.GLM(y, X, family=sm.families.Binomial()).fit(cov_type="cluster", cov_kwds={"groups": groups}, use_t=True)
    e = fit.effect(f"difference_p{k}")
    assert e.statistic == f"visible - not visible at progress {at:.0%} ({k}th percentile)"
    assert e.estimate == pytest.approx(ref.params["other"], rel=1e-8)
    assert e.p_value == pytest.approx(ref.pvalues["other"], rel=1e-6)
    inter = fit.effect("interaction (slope visible - slope not visible)")
    assert inter.estimate == pytest.approx(ref.params["p:other"], rel=1e-8)


def test_the_joint_wald_test_of_progress_does_not_depend_on_the_reference(data):
    fit = fit_progress_model(data, "aligned", "p")
    y, X, groups = design(data, reference="visible")
    ref = sm.GLM(y, X, family=sm.families.Binomial()).fit(cov_type="cluster", cov_kwds={"groups": groups}, use_t=True)
    w = ref.wald_test("p = 0, p:other = 0", use_f=True, scalar=True)
    assert fit.joint.estimate == pytest.approx(float(w.statistic), rel=1e-6)
    assert fit.joint.p_value == pytest.approx(float(w.pvalue), rel=1e-6)
    assert fit.joint.dof == (2.0, 29.0)


def test_gee_with_the_bias_reduced_covariance_is_statsmodels_gee(data):
    fit = fit_progress_model(data, "aligned", "p", method="gee")
    y, X, groups = design(data, reference="visible")
    ref = sm.GEE(y, X, groups=groups, family=sm.families.Binomial(), cov_struct=sm.cov_struct.Exchangeable()).fit(
        cov_type="bias_reduced"
    )
    e = fit.effect("progress slope, visible")
    assert e.estimate == pytest.approx(ref.params["p"], rel=1e-5)
    assert e.p_value == pytest.approx(ref.pvalues["p"], rel=1e-4)
    assert "Mancl-DeRouen" in fit.inference and not is_defined(e.dof)


def test_without_the_small_sample_correction_inference_is_normal_based(data):
    fit = fit_progress_model(data, "aligned", "p", small_sample=False)
    assert not fit.small_sample and not is_defined(fit.effect("progress slope, visible").dof)  # z: none
    assert fit.joint.dof == 2.0
    many = fit_progress_model(simulated(n_sessions=40, n_actions=20, seed=1), "aligned", "p")
    assert not many.small_sample  # 40 sessions: no correction by default


def test_the_sentence_names_both_slopes_and_the_joint_test(data):
    text = summary_sentence(fit_progress_model(data, "aligned", "p"), "route coverage")
    assert "In visible sessions the odds of 'perceived aligned (yes)' rise by a factor of" in text
    assert "joint Wald test of both slopes, F(2, 29)" in text


def test_the_model_says_why_it_cannot_be_fitted(data):
    few = fit_progress_model(data.head(20), "aligned", "p")
    assert isinstance(few, Undefined) and few.reason.startswith("only 20 labelled actions")
    one = fit_progress_model(data[data["condition"] == "visible"], "aligned", "p")
    assert one == Undefined("only one condition is present")
    flat = fit_progress_model(data.assign(aligned=True), "aligned", "p")
    assert flat == Undefined("every action has the same value")
    with pytest.raises(ValueError):
        fit_progress_model(data, "aligned", "p", method="ols")


def test_too_few_sessions_in_a_condition_is_said_and_the_model_shown_only_on_request():
    """Three sessions per condition give t(5) and F(2, 5): fitted, but flagged as not reliably
    estimable; 5 per condition is enough."""
    few = simulated(n_sessions=6, n_actions=60, seed=2)
    fit = fit_progress_model(few, "aligned", "p")
    assert fit.sessions_per_condition == (3, 3) and fit.joint.dof == (2.0, 5.0)
    assert fit.few_clusters == (
        "not reliably estimable: 3 not visible, 3 visible sessions; session-clustered errors need at least "
        "5 sessions in each condition"
    )
    assert fit_progress_model(simulated(n_sessions=10, n_actions=60, seed=2), "aligned", "p").few_clusters is None


@pytest.mark.parametrize("method", ["glm", "gee"])
def test_the_fit_starts_from_the_grouped_estimates_and_ends_where_a_fit_from_zero_ends(data, method):
    """The actions share their progress values (60 per condition here, as a million actions share
    some 60,000): the estimates of the binomial counts per (progress, condition) are the maximum of
    the same likelihood, the fit on the actions starts there and confirms them in one iteration,
    and its estimates and errors are those of statsmodels' own fit started from zero."""
    from analysis import progress_model as pm

    df = pm._design(data, "aligned", "p", ("not_visible", "visible"))
    start = pm._grouped_estimates(df, "visible")
    assert start is not None
    y, X, groups = design(data, reference="not_visible")
    if method == "glm":
        ref = sm.GLM(y, X, family=sm.families.Binomial()).fit(
            cov_type="cluster", cov_kwds={"groups": groups}, use_t=True
        )
        np.testing.assert_allclose(start, ref.params.to_numpy(), rtol=1e-9)
        res = pm._fit(df, "glm", True, "visible")
        assert res.fit_history["iteration"] == 1  # (from zero: 4 or 5)
    else:
        ref = sm.GEE(y, X, groups=groups, family=sm.families.Binomial(), cov_struct=sm.cov_struct.Exchangeable()).fit(
            cov_type="bias_reduced"
        )
        res = pm._fit(df, "gee", True, "visible")
    np.testing.assert_allclose(res.params.to_numpy(), ref.params.to_numpy(), rtol=1e-8)
    np.testing.assert_allclose(res.bse.to_numpy(), ref.bse.to_numpy(), rtol=1e-7)


def test_without_shared_progress_values_the_fit_starts_from_zero():
    from analysis import progress_model as pm

    data = simulated(n_sessions=10, n_actions=40, seed=4)
    data["p"] = np.random.default_rng(4).random(len(data))  # (each action its own progress: no groups to count)
    df = pm._design(data, "aligned", "p", ("not_visible", "visible"))
    assert pm._grouped_estimates(df, "visible") is None
    assert is_defined(fit_progress_model(data, "aligned", "p"))
