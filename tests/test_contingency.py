"""The test behind Fig. 3: chi-square, Cramér's V and residuals on a known table."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.stats import chi2 as chi2_dist
from scipy.stats import chi2_contingency
from scipy.stats.contingency import association

from analysis.contingency import chi2_many, independence_test
from corpus.values import Undefined

# condition x act counts
TABLE = {
    "not_visible": {"acknowledge": 10, "continue": 20, "other": 30},
    "visible": {"acknowledge": 20, "continue": 20, "other": 10},
}


def coded_actions() -> pd.DataFrame:
    """The table as coded actions, spread over 4 sessions per condition."""
    rows = []
    for cond, counts in TABLE.items():
        k = 0
        for code, n in counts.items():
            for _ in range(n):
                rows.append({"session_id": f"{cond}-{k % 4}", "condition": cond, "code": code})
                k += 1
    return pd.DataFrame(rows)


def test_chi_square_and_cramers_v_on_a_known_table():
    obs = np.array([[10, 20, 30], [20, 20, 10]], dtype=float)
    n = obs.sum()
    expected = (
        obs.sum(1, keepdims=True) * obs.sum(0, keepdims=True) / n
    )  # [[16.36, 21.82, 21.82], [13.64, 18.18, 18.18]]
    chi2_hand = ((obs - expected) ** 2 / expected).sum()
    assert chi2_hand == pytest.approx(451 / 36, rel=1e-12)  # 2.4747 + 0.1515 + 3.0682 + 2.9697 + 0.1818 + 3.6818
    res = independence_test(coded_actions(), n_boot=200, n_perm=200)
    assert res.chi2.estimate == pytest.approx(chi2_hand, rel=1e-12)
    assert res.chi2.dof == 2
    assert res.chi2.p_value == pytest.approx(chi2_dist.sf(chi2_hand, 2), rel=1e-9)
    assert res.cramers_v.estimate == pytest.approx(np.sqrt(chi2_hand / (n * 1)), rel=1e-12)  # min(r, c) - 1 = 1
    # Adjusted standardized residuals (Haberman): (O - E) / sqrt(E (1 - row/n) (1 - col/n)).
    rows, cols = obs.sum(1, keepdims=True) / n, obs.sum(0, keepdims=True) / n
    adj = (obs - expected) / np.sqrt(expected * (1 - rows) * (1 - cols))
    assert res.residuals.loc["visible", "other"] == pytest.approx(adj[1, 2], rel=1e-9)
    assert res.residuals.loc["visible", "other"] < -1.96 < 1.96 < res.residuals.loc["not_visible", "other"]
    assert res.table.loc["visible", "acknowledge"] == 20 and res.n_sessions == 8


def test_the_session_bootstrap_interval_is_seeded_and_brackets_v():
    a = independence_test(coded_actions(), seed=3, n_boot=500, n_perm=100)
    b = independence_test(coded_actions(), seed=3, n_boot=500, n_perm=100)
    v = a.cramers_v
    assert (v.low, v.high) == (b.cramers_v.low, b.cramers_v.high)
    assert 0 <= v.low < v.high <= 1
    assert "session bootstrap" in v.interval_method and "500 resamples, seed 3" in v.interval_method
    assert 1 / 101 <= a.permutation_p <= 1


def test_the_vectorised_chi_square_equals_scipy_on_random_tables():
    rng = np.random.default_rng(0)
    tables = rng.integers(0, 15, size=(300, 2, 6)).astype(float)
    tables[:5, :, 2] = 0  # an empty category in some tables
    chi2, v = chi2_many(tables)
    for t, c, vv in zip(tables, chi2, v):
        keep = t.sum(0) > 0
        ref = chi2_contingency(t[:, keep], correction=False)[0]
        assert c == pytest.approx(ref, rel=1e-9, abs=1e-12)
        assert vv == pytest.approx(association(t[:, keep].astype(int), method="cramer"), rel=1e-9)


def test_undefined_when_there_is_nothing_to_test():
    one = coded_actions()[lambda d: d["condition"] == "visible"]
    assert independence_test(one) == Undefined("only one condition has coded actions")
    assert independence_test(coded_actions().iloc[0:0]) == Undefined("no coded actions")
    same = coded_actions().assign(code="other")
    assert independence_test(same) == Undefined("every coded action has the same act")


def test_residuals_come_from_the_observed_table_when_a_cell_is_empty():
    """An empty cell stays empty: the residuals are those of the observed table (statsmodels'
    Table would put 0.5 in the empty cell first, and every residual would move)."""
    table = {
        "not_visible": {"acknowledge": 12, "continue": 0, "other": 18},
        "visible": {"acknowledge": 6, "continue": 9, "other": 15},
    }
    rows = [
        {"session_id": f"{cond}-{k % 4}", "condition": cond, "code": code}
        for cond, counts in table.items()
        for k, (code, n) in enumerate((c, n) for c, n in counts.items() for _ in range(n))
    ]
    res = independence_test(pd.DataFrame(rows), n_boot=50, n_perm=50)
    # By hand: n = 60; row totals 30, 30; column totals 18, 9, 33.
    # E(not_visible, continue) = 30 * 9 / 60 = 4.5; adjusted residual (0 - 4.5) / sqrt(4.5 (1 - 1/2) (1 - 9/60))
    assert res.expected.loc["not_visible", "continue"] == 4.5
    assert res.residuals.loc["not_visible", "continue"] == pytest.approx(-4.5 / np.sqrt(4.5 * 0.5 * 0.85), rel=1e-12)
    # E(visible, acknowledge) = 30 * 18 / 60 = 9; (6 - 9) / sqrt(9 * 0.5 * 0.7)
    assert res.residuals.loc["visible", "acknowledge"] == pytest.approx(-3 / np.sqrt(9 * 0.5 * 0.7), rel=1e-12)
    assert res.table.loc["not_visible", "continue"] == 0


def test_the_bias_corrected_cramers_v_is_bergsmas_by_hand():
    """Bergsma (2013): phi2~ = max(0, phi2 - (r-1)(c-1)/(n-1)), r~ = r - (r-1)^2/(n-1), c~ likewise,
    V~ = sqrt(phi2~ / min(r~-1, c~-1)); on the known 2 x 3 table of 110 actions."""
    from analysis.contingency import corrected_v

    obs = np.array([[10, 20, 30], [20, 20, 10]], dtype=float)
    n, phi2 = 110.0, (451 / 36) / 110
    phi2_t = phi2 - (1 * 2) / (n - 1)
    r_t, c_t = 2 - 1 / (n - 1), 3 - 4 / (n - 1)
    by_hand = np.sqrt(phi2_t / min(r_t - 1, c_t - 1))
    assert corrected_v(obs[None])[0] == pytest.approx(by_hand, rel=1e-12)
    res = independence_test(coded_actions(), n_boot=200, n_perm=50)
    vc = res.cramers_v_corrected
    assert vc.estimate == pytest.approx(by_hand, rel=1e-12) and vc.estimate < res.cramers_v.estimate
    assert vc.low <= vc.estimate <= vc.high and vc.interval_method == res.cramers_v.interval_method
    # Independence shrinks to 0, not below; one row has no V.
    assert corrected_v(np.array([[[10, 10], [10, 10]]]))[0] == 0.0
    assert np.isnan(corrected_v(np.array([[[10, 10], [0, 0]]]))[0])
