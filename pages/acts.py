"""Grounding acts: their share by condition with the test of independence (Fig. 3), and perceived
alignment within each act (Fig. 4 left)."""

import streamlit as st

from components.act_charts import act_name, act_share_figure, alignment_by_act_figure, test_summary
from components.analysis_filters import filter_bar, scope_caption
from components.chart import HOLLOW_BARS, show_chart
from components.dataset import require_corpus, synthetic_banner
from components.drilldown import first_point, show_actions
from components.palette import CONDITION_NAMES
from services import alignment as svc

corpus = require_corpus()
st.title("Grounding acts by condition")
synthetic_banner(corpus)
scope = filter_bar(corpus)

result = svc.acts_by_condition(scope)
if result is None:
    st.info(
        "This dataset carries no grounding-act labels (labels/grounding_acts.csv), and no coding task on it "
        "has been closed yet (Annotate pages)."
    )
    st.stop()
shares, by_act, test = result
if shares.empty:
    st.info("No coded action in the selection.")
    st.stop()

st.subheader("Which acts, in which condition")
clicked = first_point(
    show_chart(act_share_figure(shares, test), shares, "grounding_acts_by_condition", key="acts_shares")
)
test_summary(test)
scope_caption(
    scope,
    uses_acts=True,
    uses_mm=False,
    note="Bars: share of the condition's coded actions; the number above a bar is n.",
)
if clicked:
    cond, code = clicked[0], clicked[1]
    show_actions(svc.act_actions(scope, cond, code), f"{act_name(code)}, {CONDITION_NAMES[cond]}", "acts_rows")

st.subheader("Partner judged on the same page, within each act")
if by_act.empty:
    st.info("No coded action in the selection carries a partner-intent label.")
else:
    clicked = first_point(
        show_chart(alignment_by_act_figure(by_act), by_act, "alignment_within_acts", key="acts_alignment")
    )
    scope_caption(
        scope,
        uses_acts=True,
        note=(
            "Bars: share of the coded actions whose actor judged the partner had understood (partner intent p1), n above the bar, "
            f"Wilson 95% intervals; {HOLLOW_BARS}."
        ),
    )
    if clicked:
        cond, code = clicked[0], clicked[1]
        show_actions(
            svc.act_actions(scope, cond, code), f"{act_name(code)}, {CONDITION_NAMES[cond]}", "acts_alignment_rows"
        )
