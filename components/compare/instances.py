"""The items where runs disagree with people (or with each other), filterable, each with a link
that opens it in Replay. A filter chosen on a chart (a confusion cell, a recall or slice bar)
carries over here."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from analysis.compare.comparison import KINDS, Comparison
from components.compare.common import DIMENSIONS, FILTER_KEY, label_name, replay_url, run_label
from corpus import schema

ANY = "(any)"
MAX_ROWS = 5000


def _chart_filter(cmp: Comparison) -> dict:
    f = st.session_state.get(FILTER_KEY) or {}
    if f.get("run") not in cmp.run_ids or f.get("dimension") not in DIMENSIONS:
        return {}
    return f


def _clear() -> None:
    st.session_state[FILTER_KEY] = None


def _slice_keys(cmp: Comparison, f: dict) -> pd.MultiIndex | None:
    if not f.get("field"):
        return None
    c = cmp.cat
    sel = c[(c["run"] == f["run"]) & (c["dimension"] == f["dimension"])]
    sel = sel[sel[f["field"]].astype(str) == str(f["value"])]
    return pd.MultiIndex.from_frame(sel[["session_id", "action_index"]])


def _table(cmp: Comparison, df: pd.DataFrame, dim: str) -> pd.DataFrame:
    runs = [r for r in cmp.run_ids if r in df.columns]
    out = pd.DataFrame(
        {
            "item": df["session_id"] + ":" + df["action_index"].astype(str),
            "replay": [replay_url(s, i) for s, i in zip(df["session_id"], df["action_index"])],
            "role": df["role"],
            "condition": df["condition"],
            "progress": df["progress"].astype(str),
            "person": [label_name(dim, v) for v in df["truth"]],
        }
    )
    for r in runs:
        out[r] = [label_name(dim, v) if isinstance(v, str) else "no prediction" for v in df[r]]
    out["runs wrong"] = df["runs_wrong"].to_numpy()
    out["action"] = df["h_action_type"].astype(str) + ": " + df["h_text"].fillna("").astype(str)
    out["person's rationale"] = df["h_rationale"].fillna("")
    return out


def render(cmp: Comparison) -> None:
    f = _chart_filter(cmp)
    if f:
        what = f"{DIMENSIONS[f['dimension']]}, {f['run']}"
        what += f", person said {f['truth']}" if f.get("truth") else ""
        what += f", run said {f['pred']}" if f.get("pred") else ""
        what += f", {f['field']} = {f['value']}" if f.get("field") else ""
        c1, c2 = st.columns([4, 1])
        c1.info("Filter from the chart:", icon=":material/filter_alt:")
        c1.text(what)
        c2.button("Clear the chart filter", on_click=_clear, key="compare_inst_clear")
    dims = [d for d in DIMENSIONS if (cmp.cat["dimension"] == d).any()]
    c1, c2, c3, c4 = st.columns(4)
    dim = c1.selectbox(
        "Dimension",
        dims,
        index=dims.index(f["dimension"]) if f else 0,
        format_func=DIMENSIONS.get,
        key="compare_inst_dim",
    )
    kind = c2.selectbox(
        "Show",
        list(KINDS),
        format_func=KINDS.get,
        key="compare_inst_kind",
        index=2 if f.get("pred") and f.get("pred") == f.get("truth") else 0,
    )
    runs = [ANY, *cmp.run_ids]
    run = c3.selectbox(
        "Run",
        runs,
        index=runs.index(f["run"]) if f else 0,
        key="compare_inst_run",
        format_func=lambda r: r if r == ANY else run_label(cmp, r),
    )
    role = c4.selectbox("Role", [ANY, *schema.ROLES], key="compare_inst_role")
    df = cmp.disagreements(dim, kind)
    if df.empty:
        st.info("No item to show.")
        return
    if role != ANY:
        df = df[df["role"] == role]
    if run != ANY and run in df.columns:
        df = df[df[run].notna()]
        if kind == "people":
            df = df[df[run] != df["truth"]]
    if f and f.get("dimension") == dim and run == f["run"]:
        if f.get("truth"):
            df = df[df["truth"] == f["truth"]]
        if f.get("pred") and run in df.columns:
            df = df[df[run] == f["pred"]]
        keys = _slice_keys(cmp, f)
        if keys is not None:
            df = df[pd.MultiIndex.from_frame(df[["session_id", "action_index"]]).isin(keys)]
    st.caption(
        f"{len(df)} item(s){f'; the first {MAX_ROWS} shown' if len(df) > MAX_ROWS else ''}. Runs by id; "
        "the replay link opens the action in a new tab."
    )
    st.dataframe(
        _table(cmp, df.head(MAX_ROWS), dim),
        hide_index=True,
        width="stretch",
        column_config={
            "replay": st.column_config.LinkColumn("replay", display_text=":material/play_circle:", width="small"),
        },
    )
