"""Rendering an agreement report (:class:`analysis.agreement.AgreementReport`), a model coder
against gold, and a scheme comparison. Values print through the one formatter,
:mod:`analysis.format`; an undefined value is shown as "undefined" with its reason beside it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from analysis import agreement as ag
from analysis.drilldown import actions_behind, items_with_codes
from analysis.format import fmt, fmt_ci, fmt_count, fmt_p, fmt_share, fmt_short, fmt_test
from analysis.results import Estimate
from analysis.schemes import SchemeComparison
from components.drilldown import first_point, show_actions
from corpus.escape import md_line, md_text, plotly_text
from corpus.loading.dataset import Corpus
from corpus.values import is_defined
from services import agreement

LEVEL_HELP = {
    "nominal": "categories without order (grounding acts, dialogue moves)",
    "ordinal": "ordered categories: give their order, low to high",
    "interval": "numeric labels, differences meaningful",
    "ratio": "numeric labels of zero or more, ratios meaningful",
}


def estimate_help(est: Estimate) -> str:
    """What a tile's number rests on and how it was computed, for its help text."""
    parts = [
        f"n = {est.n} {est.n_of}.",
        fmt_ci(est, 3),
        est.interval_method,
        f"Method: {est.method}.",
        f"Computed by {est.provenance()}.",
    ]
    return " ".join(p for p in parts if p)


def metric(col, est: Estimate, label: str | None = None, digits: int = 2) -> None:
    """One statistic as a tile: the value (or "undefined"), its interval, the reason when undefined."""
    col.metric(label or est.statistic, fmt_short(est.estimate, digits), help=estimate_help(est))
    if est.defined:
        if fmt_ci(est, digits):
            col.caption(fmt_ci(est, digits))
    else:
        col.caption(str(est.estimate))


def headline(rep: ag.Headline) -> None:
    """The main numbers, each with its n and interval, and the reason when undefined."""
    c = st.columns(6)
    c[0].metric(
        "Items",
        rep.n_items,
        help=f"{rep.n_coders} coders, {rep.n_labels} labels, "
        f"{rep.n_missing_labels} missing labels, {rep.n_items_complete} items coded by every coder",
    )
    for col, est, label in zip(
        c[1:],
        rep.statistics,
        ["Fleiss' kappa", "Krippendorff's alpha", "Percent agreement", "Mean Cohen's kappa", "Gwet's AC1"],
    ):
        metric(col, est, label)


def diagnostics(rep: ag.AgreementReport, names: Mapping[str, str] | None = None) -> None:
    """What to check before trusting the numbers: skew, coder bias, sparse categories, few items
    (``names``: each code's name in the codebook)."""
    diag = rep.diagnostics
    for w in diag.warnings:
        st.warning(md_line(w[0].upper() + w[1:]), icon=":material/report:")  # they name categories
    if not diag.warnings:
        share = fmt_share(diag.prevalence_share) if is_defined(diag.prevalence_share) else None
        st.success(
            "No warning: "
            + (
                f"the commonest code, '{md_text((names or {}).get(diag.prevalence_category, diag.prevalence_category))}', "
                f"has {share} of labels; "
                if share
                else ""
            )
            + f"{diag.n_items_complete} items coded by every coder; no category under {ag.SPARSE_USES} uses; "
            "coders use the categories in similar proportions.",
            icon=":material/check_circle:",
        )


def per_category(rep: ag.AgreementReport, names: dict[str, str]) -> None:
    uses = rep.diagnostics.category_uses
    rows = [
        {
            "code": c,
            "name": names.get(c, c),
            "labels": uses.get(c, 0),
            "share": uses.get(c, 0) / max(rep.n_labels, 1),
            "kappa": v if is_defined(v) else None,
            "note": "" if is_defined(v) else str(v),
        }
        for c, v in rep.fleiss.per_category.items()
    ]
    st.dataframe(
        pd.DataFrame(rows),
        hide_index=True,
        width="stretch",
        column_config={
            "share": st.column_config.ProgressColumn("share of labels", format="percent", min_value=0, max_value=1),
            "kappa": st.column_config.NumberColumn("per-category kappa", format="%.2f"),
        },
    )


def _shown(codes, names: Mapping[str, str] | None) -> list[str]:
    """The categories as a reader knows them (the codebook's names), escaped for Plotly."""
    names = names or {}
    return [plotly_text(names.get(str(c), str(c))) for c in codes]


def matrix_figure(
    m: pd.DataFrame, x_title: str, y_title: str, title: str | None = None, names: Mapping[str, str] | None = None
) -> go.Figure:
    """A categories x categories heatmap; ``names``: each code's display name (the axes show it)."""
    x_title, y_title = plotly_text(x_title), plotly_text(y_title)  # coder names: data
    title = plotly_text(title) if title else title
    # Each cell carries its (row, column) categories as written, for the click that lists its items.
    cells = [[[str(i), str(c)] for c in m.columns] for i in m.index]
    fig = go.Figure(
        go.Heatmap(
            z=m.to_numpy(),
            x=_shown(m.columns, names),
            y=_shown(m.index, names),
            customdata=cells,
            colorscale="Blues",
            text=[[fmt_short(v, 1) for v in row] for row in m.to_numpy()],
            texttemplate="%{text}",
            hovertemplate=f"{y_title} %{{y}}<br>{x_title} %{{x}}<br>%{{text}}<extra></extra>",
            showscale=False,
        )
    )
    fig.update_layout(
        height=max(320, 34 * len(m) + 120),
        margin={"l": 10, "r": 10, "t": 30 if title else 10, "b": 10},
        xaxis={"title": x_title, "side": "bottom"},
        yaxis={"title": y_title, "autorange": "reversed"},
    )
    if title:
        fig.update_layout(title={"text": title, "font": {"size": 13}})
    return fig


def matrix(
    frame: pd.DataFrame | Exception,
    x_title: str,
    y_title: str,
    title: str | None = None,
    key: str | None = None,
    names: Mapping[str, str] | None = None,
) -> None:
    """A heatmap of a categories x categories table, or why there is none (too many categories)."""
    if isinstance(frame, Exception):
        st.info(str(frame))
        return
    st.plotly_chart(matrix_figure(frame.astype(float), x_title, y_title, title, names), key=key, width="stretch")


def coincidence_table(rep: ag.AgreementReport) -> pd.DataFrame | ag.MatrixTooLarge:
    try:
        return rep.coincidence_frame()
    except ag.MatrixTooLarge as exc:
        return exc


def clickable_cells(fig: go.Figure, m: pd.DataFrame, names: Mapping[str, str] | None = None) -> go.Figure:
    """``fig`` (a :func:`matrix_figure`) with a transparent square over every cell that a click selects
    (Plotly's heatmaps give no selection): its customdata the cell's (row, column) categories."""
    xs = _shown(m.columns, names)
    ys = _shown(m.index, names)
    fig.update_traces(hoverinfo="skip", hovertemplate=None, selector={"type": "heatmap"})
    fig.add_trace(
        go.Scatter(
            x=[x for _ in ys for x in xs],
            y=[y for y in ys for _ in xs],
            customdata=[[str(i), str(c)] for i in m.index for c in m.columns],
            text=[fmt_short(v, 1) for v in m.to_numpy().ravel()],
            mode="markers",
            marker={"symbol": "square", "size": 30, "opacity": 0},
            hovertemplate="%{y} with %{x}: %{text}<extra></extra>",
            showlegend=False,
        )
    )
    return fig


def coincidence(
    rep: ag.AgreementReport,
    corpus: Corpus | None = None,
    labels: pd.DataFrame | None = None,
    names: Mapping[str, str] | None = None,
) -> None:
    """The coincidence matrix; with the dataset and the labels it was computed from, a click on a
    cell lists the actions behind it (one coder gave the row's code, another the column's), each
    opening Replay in a new tab."""
    table = coincidence_table(rep)
    if isinstance(table, Exception) or corpus is None or labels is None:
        matrix(table, "code", "code", names=names)
    else:
        event = st.plotly_chart(
            clickable_cells(matrix_figure(table.astype(float), "code", "code", names=names), table, names),
            key="agr_coincidence",
            width="stretch",
            on_select="rerun",
            selection_mode="points",
        )
        points = event.selection.points if event is not None else []
        if points:
            row_code, col_code = first_point(points)[:2]
            rows = items_with_codes(labels, row_code, col_code)
            row_name, col_name = ((names or {}).get(c, c) for c in (row_code, col_code))
            title = f"{row_name} with {col_name}" if row_code != col_code else f"{row_name} by two coders"
            show_actions(actions_behind(corpus, rows, {"labels": "labels"}), title, key="agr_coincidence_items")
    st.caption(
        "Krippendorff's coincidence matrix: pairs of labels given to the same item by different coders. "
        "Off the diagonal: which codes get confused. Click a cell for the actions behind it."
    )


def pairwise(rep: ag.AgreementReport) -> None:
    pairs = rep.pairwise.to_frame()
    if pairs.empty:
        st.info("No pair of coders labelled the same items.")
        return
    pairs["note"] = [fmt(k) if not is_defined(k) else "" for k in pairs["kappa"]]
    pairs["kappa"] = [k if is_defined(k) else None for k in pairs["kappa"]]
    st.dataframe(
        pairs,
        hide_index=True,
        width="stretch",
        column_config={"kappa": st.column_config.NumberColumn("Cohen's kappa", format="%.2f")},
    )


def named_labels(table: pd.DataFrame, names: Mapping[str, str] | None) -> pd.DataFrame:
    """The most-disagreed table with each code by its name: the modal label, and "coder=code" pairs."""
    if not names or table.empty:
        return table
    out = table.copy()
    if "modal_label" in out.columns:
        out["modal_label"] = [names.get(str(c), c) for c in out["modal_label"]]
    if "labels" in out.columns:
        out["labels"] = [
            "; ".join(
                f"{who}={names.get(code, code)}"
                for who, _, code in (pair.partition("=") for pair in str(v).split("; "))
            )
            for v in out["labels"]
        ]
    return out


def disagreements(rep: ag.AgreementReport, names: Mapping[str, str] | None = None) -> None:
    if rep.most_disagreed.empty:
        st.success("The coders agree on every item.")
        return
    st.dataframe(
        named_labels(rep.most_disagreed, names),
        hide_index=True,
        width="stretch",
        column_config={
            "agreement": st.column_config.NumberColumn(format="%.2f"),
            "modal_share": st.column_config.NumberColumn(format="%.2f"),
        },
    )


def model_vs_humans(result: ag.GoldComparison, names: Mapping[str, str] | None = None) -> None:
    c = st.columns(3)
    metric(c[0], result.cohen, "Cohen's kappa vs gold")
    metric(c[1], result.percent_agreement, "Percent agreement")
    c[2].metric(
        "Items compared",
        result.cohen.n,
        help=f"gold: {md_line(result.gold)}; {result.n_unmatched} of its labels had no gold",
    )
    try:
        table = result.confusion_matrix()
    except ag.MatrixTooLarge as exc:
        table = exc
    matrix(table, "gold", result.coder, names=names)


PAPER = (
    "the ALMANAC paper: Fleiss' kappa 0.81 among its three human coders and Cohen's kappa 0.76 for GPT against "
    "their labels, both on its 172 validation actions"
)


def beside_the_paper(people: ag.AgreementReport, result: ag.GoldComparison, partition: str | None) -> None:
    """The people's agreement and the model's on the same items, set beside the paper's numbers with
    the item set named (the paper's are on validation items only)."""
    where = (
        f"the {fmt_count(people.n_items)} validation items"
        if partition == "validation"
        else f"{fmt_count(people.n_items)} items of the partition {md_line(partition)}"
        if partition
        else f"all {fmt_count(people.n_items)} items (few-shot items included; the paper's numbers are on "
        "validation items only)"
    )
    st.caption(
        f"On {where}: the people's Fleiss' kappa {fmt(people.fleiss.estimate)}, the model's Cohen's kappa "
        f"{fmt(result.cohen.estimate)} against their {md_line(result.gold)} on {fmt_count(result.cohen.n)} of them; "
        f"{PAPER}."
    )


def scheme_comparison(cmp: SchemeComparison, name_a: str, name_b: str) -> None:
    c = st.columns(3)
    c[0].metric(
        "Actions in both schemes",
        cmp.n_items,
        help=f"{cmp.n_only_a} only in {md_line(name_a)}, {cmp.n_only_b} only in {md_line(name_b)}",
    )
    metric(c[1], cmp.cramers_v)
    c[2].metric(
        "Chi-square p",
        fmt_p(cmp.chi2.p_value) if cmp.chi2.defined else "undefined",
        help=f"{fmt_test(cmp.chi2)}. {estimate_help(cmp.chi2)}",
    )
    for w in cmp.chi2.warnings:
        st.info(w)
    if not cmp.table.empty:
        st.plotly_chart(matrix_figure(cmp.table.astype(float), name_b, name_a), width="stretch")
        st.dataframe(
            cmp.best_match,
            hide_index=True,
            width="stretch",
            column_config={"share": st.column_config.NumberColumn("share of its actions", format="%.2f")},
        )


def alpha_level(codes: Sequence[str], key: str = "agr_level") -> tuple[str, list[str] | None]:
    """The level of measurement for Krippendorff's alpha and, for ordinal, the category order."""
    c1, c2 = st.columns([1, 3])
    level = c1.selectbox(
        "Krippendorff's alpha level",
        ag.LEVELS,
        key=key,
        format_func=str.capitalize,
        help="; ".join(f"{k}: {v}" for k, v in LEVEL_HELP.items()),
    )
    if level != "ordinal":
        return level, None
    # A codebook's list is not an order (grounding acts are nominal): the order is the user's to give.
    text = c2.text_input(
        "Category order, low to high (comma-separated)",
        "",
        key=f"{key}_order",
        placeholder=", ".join(codes),
        help="The codes from the lowest to the highest. A codebook lists its codes in no order of size, so none "
        "is assumed.",
    )
    order = [c.strip() for c in text.split(",") if c.strip()]
    if not order:
        c2.info("Give the categories' order, low to high: until then alpha is nominal.", icon=":material/info:")
        return "nominal", None
    return level, order


def level_error(level: str, exc: Exception) -> None:
    """Why the labels do not fit the chosen level of measurement (or category order)."""
    st.error(md_line(f"Krippendorff's alpha at the {level} level: {exc}"))


def dataset_report(
    corpus: Corpus, scheme: str, coders: list[str], partition: str | None, level: str, order: list[str] | None
) -> ag.AgreementReport:
    """The dataset's agreement report (:func:`services.agreement.dataset_report`); when the labels do
    not fit the chosen level of measurement, says why and stops the page."""
    try:
        return agreement.dataset_report(corpus, scheme, coders, partition, level, order)
    except ag.LabelTableError as exc:
        level_error(level, exc)
        st.stop()
