"""Mental-model alignment over task progress and by grounding act (the paper's Fig. 3 and Fig. 4).

Pure functions on the action table of :class:`corpus.dataset.Corpus` (one row per action with
session_id, condition, role, type, progress, team_goal, partner_intent, self_reasoning, aligned)
and on a long table of coded labels (item_id / session_id, action_index, code).

- ``progress_curves``: per condition and progress bin, the share of "grounded" labels on each
  dimension (t3 clear team goal, p1 partner understood, r1 executing the plan) and of perceived
  alignment, with Wilson 95 % intervals (statsmodels).
- ``progress_model``: a logistic regression of alignment on progress, condition and their
  interaction (statsmodels GLM, standard errors clustered by session).
- ``act_shares``: grounding acts' share of coded actions per condition (Fig. 3).
- ``alignment_by_act``: perceived partner-intent alignment within each grounding act per condition
  (Fig. 4 left).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import statsmodels.api as sm
import statsmodels.formula.api as smf
from statsmodels.stats.proportion import proportion_confint

from corpus import schema

MEASURES = {
    "team_goal": "Team goal clear (t3)",
    "partner_intent": "Partner understood (p1)",
    "self_reasoning": "Executing the plan (r1)",
    "aligned": "Perceived aligned (yes)",
}


def grounded_indicators(actions: pd.DataFrame) -> pd.DataFrame:
    """One 0/1 column per measure (NaN where the action has no annotation)."""
    out = pd.DataFrame(index=actions.index)
    for dim, codes in schema.GROUNDED_CODES.items():
        col = actions[dim]
        out[dim] = np.where(col.isna(), np.nan, col.isin(codes).astype(float))
    out["aligned"] = actions["aligned"].map({True: 1.0, False: 0.0})
    return out


def progress_curves(actions: pd.DataFrame, bins: int = 5, role: str | None = None) -> pd.DataFrame:
    """Share grounded per condition x progress bin x measure, with n and a Wilson 95 % CI.

    Progress is the action's position in its session (0 = first action, 1 = last), cut into
    ``bins`` equal-width bins labelled by their midpoint.
    """
    df = actions if role is None else actions[actions["role"] == role]
    ind = grounded_indicators(df)
    edges = np.linspace(0, 1, bins + 1)
    mids = (edges[:-1] + edges[1:]) / 2
    bin_idx = np.clip(np.digitize(df["progress"].to_numpy(), edges[1:-1], right=True), 0, bins - 1)
    rows = []
    for measure in MEASURES:
        frame = pd.DataFrame({"condition": df["condition"].astype(str).to_numpy(), "bin": bin_idx, "y": ind[measure].to_numpy()})
        frame = frame.dropna(subset=["y"])
        g = frame.groupby(["condition", "bin"])["y"].agg(["sum", "count"]).reset_index()
        for cond, b, k, n in g.itertuples(index=False):
            lo, hi = proportion_confint(k, n, alpha=0.05, method="wilson")
            rows.append({
                "measure": measure, "label": MEASURES[measure], "condition": cond, "progress": round(float(mids[b]), 4),
                "share": k / n, "n": int(n), "ci_low": lo, "ci_high": hi,
            })
    return pd.DataFrame(rows, columns=["measure", "label", "condition", "progress", "share", "n", "ci_low", "ci_high"])


@dataclass(frozen=True)
class ProgressModel:
    """Logistic regression y ~ progress * condition, SEs clustered by session."""

    measure: str
    n: int
    n_sessions: int
    params: pd.DataFrame  # term, coef, se, z, p, ci_low, ci_high, odds_ratio
    formula: str

    def term(self, name: str) -> pd.Series:
        return self.params.set_index("term").loc[name]


def progress_model(actions: pd.DataFrame, measure: str = "aligned") -> ProgressModel | str:
    """Fit the model, or return the reason it cannot be fitted (too little data or variation)."""
    ind = grounded_indicators(actions)
    df = pd.DataFrame({
        "y": ind[measure],
        "progress": actions["progress"].astype(float),
        "visible": (actions["condition"].astype(str) == "visible").astype(float),
        "session": actions["session_id"].astype(str),
    }).dropna()
    if len(df) < 30:
        return f"undefined, because only {len(df)} annotated actions (30 needed)"
    if df["y"].nunique() < 2:
        return "undefined, because every action has the same value"
    if df["visible"].nunique() < 2:
        return "undefined, because only one condition is present"
    if df["session"].nunique() < 4:
        return "undefined, because clustered errors need at least 4 sessions"
    formula = "y ~ progress * visible"
    groups = pd.factorize(df["session"])[0]
    fit = smf.glm(formula, data=df, family=sm.families.Binomial()).fit(cov_type="cluster", cov_kwds={"groups": groups})
    ci = fit.conf_int()
    params = pd.DataFrame({
        "term": fit.params.index,
        "coef": fit.params.to_numpy(),
        "se": fit.bse.to_numpy(),
        "z": fit.tvalues.to_numpy(),
        "p": fit.pvalues.to_numpy(),
        "ci_low": ci[0].to_numpy(),
        "ci_high": ci[1].to_numpy(),
    })
    params["odds_ratio"] = np.exp(params["coef"])
    return ProgressModel(measure=measure, n=len(df), n_sessions=int(df["session"].nunique()), params=params, formula=formula)


def _with_actions(labels: pd.DataFrame, actions: pd.DataFrame) -> pd.DataFrame:
    keyed = actions.rename(columns={"index": "action_index"})
    return labels.merge(keyed, on=["session_id", "action_index"], how="inner", validate="many_to_one")


def act_shares(labels: pd.DataFrame, actions: pd.DataFrame) -> pd.DataFrame:
    """Each grounding act's share of the coded actions in each condition (Fig. 3)."""
    df = _with_actions(labels, actions)
    if df.empty:
        return pd.DataFrame(columns=["condition", "code", "n", "share"])
    tab = df.groupby(["condition", "code"], observed=True).size().rename("n").reset_index()
    tab["share"] = tab["n"] / tab.groupby("condition", observed=True)["n"].transform("sum")
    tab["condition"] = tab["condition"].astype(str)
    return tab.sort_values(["condition", "share"], ascending=[True, False]).reset_index(drop=True)


def alignment_by_act(labels: pd.DataFrame, actions: pd.DataFrame) -> pd.DataFrame:
    """Share of actions whose actor judged the partner aligned (p1), per grounding act and condition
    (Fig. 4 left), with n and a Wilson 95 % CI."""
    df = _with_actions(labels, actions)
    df = df[df["partner_intent"].notna()]
    rows = []
    for (cond, code), g in df.groupby(["condition", "code"], observed=True):
        k, n = int((g["partner_intent"] == "p1").sum()), len(g)
        lo, hi = proportion_confint(k, n, alpha=0.05, method="wilson")
        rows.append({"condition": str(cond), "code": code, "share_aligned": k / n, "n": n, "ci_low": lo, "ci_high": hi})
    return pd.DataFrame(rows, columns=["condition", "code", "share_aligned", "n", "ci_low", "ci_high"])
