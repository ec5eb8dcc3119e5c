"""One request unit to code (a kitchen coding task's item): the run and step, the messages before
it, the message with the unit in it, the acceptance window, the run's trace with each event's step
relative to the request, and the kitchen at a chosen step. The rule's outcome is never shown: the
coder codes blind, as against any other coder.

Every text from the run is shown as a table cell or through :func:`corpus.escape.md_text`.
"""

from __future__ import annotations

import streamlit as st

from analysis.kitchen.coding import UnitContext
from analysis.kitchen.replay import frame as kitchen_frame
from components.coding.item import CONTEXT_CHOICES
from components.kitchen_replay import grid_figure
from corpus.escape import md_text
from corpus.kitchen.dataset import KitchenCorpus
from corpus.store import Task
from services import kitchen as svc


def _earlier_count(task: Task, key: str, adjustable: bool) -> int:
    if not adjustable:
        return int(task.context_k)
    choices = sorted(set(CONTEXT_CHOICES) | {int(task.context_k)})
    return int(
        st.select_slider(
            "Messages shown before the unit's own",
            choices,
            value=st.session_state.get(f"{key}_before", int(task.context_k)),
            key=f"{key}_before",
        )
    )


def unit_view(kitchen: KitchenCorpus, task: Task, run_id: str, index: int, key: str, adjustable: bool = False) -> bool:
    """The run's ``index``-th request unit as a coder sees it; False when it is not found."""
    before = _earlier_count(task, key, adjustable)
    ctx = svc.unit_context(kitchen, run_id, index, before)
    if isinstance(ctx, str):
        st.error(
            f"Item {md_text(run_id)}:{index} cannot be shown: {md_text(ctx)}. The task was created on "
            f"'{md_text(task.dataset)}'; choose that dataset in the sidebar.",
            icon=":material/error:",
        )
        return False
    run, unit = ctx.run, ctx.unit
    st.caption(
        f"Run {md_text(run.id)} · {md_text(run.pairing)} · level {md_text(run.level if run.level is not None else 'unknown')}"
        f" · {md_text(run.recipe)} · request unit {ctx.index + 1} of {ctx.n_units} · step {unit.step}"
    )
    if len(ctx.earlier):
        st.caption(f"{len(ctx.earlier)} earlier message{'s' if len(ctx.earlier) != 1 else ''}")
        st.dataframe(ctx.earlier, hide_index=True, width="stretch", key=f"{key}_earlier")
    with st.container(border=True):
        st.markdown(f"**{md_text(ctx.sender)}** at step {unit.step} · the message")
        st.markdown(md_text(ctx.message))
        st.markdown(
            f"#### {md_text(unit.text)}\nThe unit to code: {md_text(ctx.sender)} asks "
            f"**{md_text(unit.receiver or 'no one named')}** for {md_text(ctx.request)}."
        )
    st.caption(
        f"Acceptance window: {ctx.window} steps, so the partner has until step {unit.step + ctx.window} "
        f"({md_text(ctx.window_rule)})."
    )
    st.markdown("**What the run recorded** (completed actions, stamped at the step they completed, and corrections)")
    st.dataframe(
        ctx.trace,
        hide_index=True,
        width="stretch",
        height=min(36 * (len(ctx.trace) + 1) + 2, 320),
        key=f"{key}_trace",
        column_config={"detail": st.column_config.TextColumn(width="large")},
    )
    if task.show_canvas:
        _kitchen_at(ctx, key)
    return True


def _kitchen_at(ctx: UnitContext, key: str) -> None:
    """The kitchen at the request's step, or at a step the coder picks."""
    steps = [s.step for s in ctx.run.steps]
    if not steps:
        return
    chosen = st.select_slider(
        "Kitchen at step",
        steps,
        value=steps[ctx.place],
        key=f"{key}_step_{ctx.run.id}_{ctx.index}",
        help="The request's step at first; move it to see the kitchen before or after.",
    )
    fr = kitchen_frame(ctx.run, steps.index(chosen))
    st.plotly_chart(
        grid_figure(fr, svc.tile_names(ctx.run), svc.agent_names(ctx.run)),
        key=f"{key}_grid",
        theme=None,
        config={"displaylogo": False, "displayModeBar": False},
    )
