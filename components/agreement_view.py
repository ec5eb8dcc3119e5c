"""Rendering an agreement report (analysis.agreement.report) and a scheme comparison."""

from __future__ import annotations

from typing import Any

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from analysis.schemes import SchemeComparison


def fmt(value: Any, digits: int = 2) -> str:
    """A statistic for display; an undefined one says why."""
    if isinstance(value, dict) and "undefined" in value:
        return "undefined"
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


def _why(value: Any) -> str | None:
    if isinstance(value, dict) and "undefined" in value:
        return f"undefined, because {value['undefined']}"
    return None


def _ci(ci: Any) -> str:
    if isinstance(ci, (list, tuple)) and len(ci) == 2 and all(isinstance(v, (int, float)) for v in ci):
        return f"95% CI {ci[0]:.2f} to {ci[1]:.2f}"
    return ""


def headline(rep: dict[str, Any]) -> None:
    """The main numbers, each with its n and interval, and the reason when undefined."""
    c = st.columns(6)
    c[0].metric("Items", rep["n_items"], help=f"{rep['n_coders']} coders, {rep['n_labels']} labels")
    c[1].metric(
        "Fleiss' kappa", fmt(rep["fleiss_kappa"]),
        help=f"On the {rep['fleiss_items_used']} items coded by every coder ({rep['fleiss_items_dropped']} dropped). "
        f"{_ci(rep['fleiss_ci'])}; SE {fmt(rep['fleiss_se'], 3)} ({rep['fleiss_se_method']}).",
    )
    c[2].metric("Krippendorff's alpha", fmt(rep["krippendorff_alpha"]),
                help=f"{rep['krippendorff_level']}; missing labels allowed; {_ci(rep['krippendorff_alpha_ci'])}")
    c[3].metric("Percent agreement", fmt(rep["percent_agreement"]), help="Mean pairwise agreement per item")
    c[4].metric("Mean Cohen's kappa", fmt(rep["mean_pairwise_cohen_kappa"]), help="Mean over coder pairs")
    c[5].metric("Gwet's AC1", fmt(rep["gwet_ac1"]), help="Less sensitive to skewed category prevalence than kappa")
    reasons = [r for r in (_why(rep[k]) for k in ("fleiss_kappa", "krippendorff_alpha", "percent_agreement",
                                                  "mean_pairwise_cohen_kappa", "gwet_ac1")) if r]
    for r in dict.fromkeys(reasons):
        st.info(r[0].upper() + r[1:] + ".")
    ci = _ci(rep["fleiss_ci"])
    if ci:
        st.caption(f"Fleiss' kappa {fmt(rep['fleiss_kappa'])} ({ci}, {rep['fleiss_se_method']}); "
                   f"alpha {fmt(rep['krippendorff_alpha'])} ({_ci(rep['krippendorff_alpha_ci'])}).")


def diagnostics(rep: dict[str, Any]) -> None:
    """What to check before trusting the numbers: skew, coder bias, sparse categories, few items."""
    diag = rep["diagnostics"]
    if diag["warnings"]:
        for w in diag["warnings"]:
            st.warning(w[0].upper() + w[1:], icon=":material/report:")
    else:
        prev = diag["prevalence"]
        share = prev["share"] if isinstance(prev["share"], float) else None
        st.success(
            "No warning: "
            + (f"the commonest code, '{prev['category']}', has {share:.0%} of labels; " if share is not None else "")
            + f"{diag['n_items_complete']} items coded by every coder; no category under 5 uses; "
            "coders use the categories in similar proportions.",
            icon=":material/check_circle:",
        )


def per_category(rep: dict[str, Any], names: dict[str, str]) -> None:
    uses = rep["diagnostics"]["category_uses"]
    rows = [{"code": c, "name": names.get(c, c), "labels": uses.get(c, 0),
             "share": uses.get(c, 0) / max(rep["n_labels"], 1),
             "kappa": v if isinstance(v, float) else None,
             "note": _why(v) or ""} for c, v in rep["per_category"].items()]
    st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch", column_config={
        "share": st.column_config.ProgressColumn("share of labels", format="percent", min_value=0, max_value=1),
        "kappa": st.column_config.NumberColumn("per-category kappa", format="%.2f"),
    })


def matrix_figure(m: pd.DataFrame, x_title: str, y_title: str, title: str | None = None) -> go.Figure:
    fig = go.Figure(go.Heatmap(
        z=m.to_numpy(), x=[str(c) for c in m.columns], y=[str(i) for i in m.index], colorscale="Blues",
        text=m.round(1).to_numpy(), texttemplate="%{text}", hovertemplate=f"{y_title} %{{y}}<br>{x_title} %{{x}}<br>%{{z:.1f}}<extra></extra>",
        showscale=False,
    ))
    fig.update_layout(height=max(320, 34 * len(m) + 120), margin={"l": 10, "r": 10, "t": 30 if title else 10, "b": 10},
                      xaxis={"title": x_title, "side": "bottom"}, yaxis={"title": y_title, "autorange": "reversed"})
    if title:
        fig.update_layout(title={"text": title, "font": {"size": 13}})
    return fig


def coincidence_frame(rep: dict[str, Any]) -> pd.DataFrame:
    """The report's coincidence matrix as a table (rows and columns: the codes)."""
    return pd.DataFrame(rep["coincidence_matrix"]).T.astype(float)


def coincidence(rep: dict[str, Any]) -> None:
    st.plotly_chart(matrix_figure(coincidence_frame(rep), "code", "code"), width="stretch")
    st.caption("Krippendorff's coincidence matrix: pairs of labels given to the same item by different coders. "
               "Off the diagonal: which codes get confused.")


def pairwise(rep: dict[str, Any]) -> None:
    pairs = pd.DataFrame(rep["pairwise_cohen_kappa"])
    if pairs.empty:
        st.info("No pair of coders labelled the same items.")
        return
    pairs["kappa"] = [v if isinstance(v, float) else None for v in pairs["kappa"]]
    st.dataframe(pairs, hide_index=True, width="stretch",
                 column_config={"kappa": st.column_config.NumberColumn("Cohen's kappa", format="%.2f")})


def disagreements(rep: dict[str, Any]) -> None:
    rows = pd.DataFrame(rep["most_disagreed"])
    if rows.empty:
        st.success("The coders agree on every item.")
        return
    st.dataframe(rows, hide_index=True, width="stretch",
                 column_config={"agreement": st.column_config.NumberColumn(format="%.2f"),
                                "modal_share": st.column_config.NumberColumn(format="%.2f")})


def model_vs_humans(result: dict[str, Any], paper_note: str = "") -> None:
    c = st.columns(3)
    c[0].metric("Cohen's kappa vs gold", fmt(result["cohen_kappa"]), help=f"gold: {result['gold']}")
    c[1].metric("Percent agreement", fmt(result["percent_agreement"]))
    c[2].metric("Items compared", result["n_items"], help=f"{result['n_unmatched']} of its labels had no gold")
    why = _why(result["cohen_kappa"])
    if why:
        st.info(why)
    if paper_note:
        st.caption(paper_note)
    st.plotly_chart(matrix_figure(result["confusion"].astype(float), "gold", str(result["coder"])), width="stretch")


def scheme_comparison(cmp: SchemeComparison, name_a: str, name_b: str) -> None:
    c = st.columns(3)
    c[0].metric("Actions in both schemes", cmp.n_items, help=f"{cmp.n_only_a} only in {name_a}, {cmp.n_only_b} only in {name_b}")
    c[1].metric("Cramér's V", "undefined" if cmp.cramers_v is None else f"{cmp.cramers_v:.2f}")
    c[2].metric("Chi-square p", "-" if cmp.p_value is None else f"{cmp.p_value:.3g}", help=f"df = {cmp.dof}")
    if cmp.note:
        st.info(cmp.note)
    if not cmp.table.empty:
        st.plotly_chart(matrix_figure(cmp.table.astype(float), name_b, name_a), width="stretch")
        st.dataframe(cmp.best_match, hide_index=True, width="stretch",
                     column_config={"share": st.column_config.NumberColumn("share of its actions", format="%.2f")})


@st.cache_data(show_spinner="Computing agreement (bootstrap over items)...", max_entries=32)
def cached_report(key: str, _labels: pd.DataFrame, coders: tuple[str, ...], partition: str | None,
                  level: str = "nominal", n_boot: int = 1000) -> dict[str, Any]:
    """analysis.agreement.report on one scheme's labels, cached per dataset and selection."""
    from analysis.agreement import report

    df = _labels[_labels["coder"].isin(coders)]
    if partition:
        df = df[df["partition"] == partition]
    return report(df, item_col="item_id", label_col="code", level=level, n_boot=n_boot, seed=0)
