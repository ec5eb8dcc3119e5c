"""The Replay screen's heading: the session picker, what the session is (condition, split, length,
task scores) and who took part (each participant's persona and TeamQ profile)."""

from __future__ import annotations

import streamlit as st

from analysis.format import fmt, fmt_share
from analysis.participants import ROLE_TITLES, TeamQProfile, persona_words, teamq_profile
from analysis.replay import SessionFrames, time_label
from components.replay import position
from corpus import schema
from corpus.escape import md_line, md_text
from corpus.loading.dataset import Corpus
from corpus.values import is_defined

CONDITION_ICONS = {
    "visible": "visibility",
    "not_visible": "visibility_off",
    "eye_contact": "face",
    "no_eye_contact": "face_retouching_off",
    "not_recorded": "help",
}


def condition_sentence(condition: str) -> str:
    desc = schema.CONDITION_DESCRIPTIONS.get(condition, condition)
    return f"{desc[0].upper()}{desc[1:]}."


def session_picker(corpus: Corpus) -> str | None:
    """A select box over the sessions; the first visit takes the session and position from the URL."""
    ids = list(corpus.sessions)
    if not ids:
        st.info("This dataset has no sessions.")
        return None
    if position.SESSION not in st.session_state or st.session_state[position.SESSION] not in corpus.sessions:
        wanted = st.query_params.get("session")
        if wanted is not None and wanted not in corpus.sessions:
            st.warning(
                f"The link names session '{md_line(wanted)}', which is not in this dataset; "
                f"showing '{md_line(ids[0])}'."
            )
        first_visit = position.SESSION not in st.session_state
        st.session_state[position.SESSION] = wanted if wanted in corpus.sessions else ids[0]
        if first_visit and wanted in corpus.sessions:
            st.session_state[position.POSITION] = position.from_url()
        else:
            position.reset_step()

    def label(sid: str) -> str:
        s = corpus.meta(sid)
        return f"{sid}  ·  {s.condition.replace('_', ' ')}  ·  {s.split}  ·  {corpus.n_actions(sid)} actions"

    sid = st.selectbox("Session", ids, key=position.SESSION, format_func=label, on_change=position.reset_step)
    if st.query_params.get("session") != sid:
        st.query_params["session"] = sid
    return sid


_pct = fmt_share  # a share, or "undefined"


def session_header(frames: SessionFrames) -> None:
    """Condition, split, length and task scores in two lines."""
    final_acc, final_cov = frames.accuracy(frames.n_steps - 1), frames.coverage(frames.n_steps - 1)
    icon = CONDITION_ICONS.get(frames.condition, "help")
    reported = (
        "" if frames.reported_accuracy is None else f" The session file reports {fmt_share(frames.reported_accuracy)}."
    )
    st.markdown(
        f":material/{icon}: **Condition: {frames.condition.replace('_', ' ')}.** "
        f"{condition_sentence(frames.condition)}  \n"
        f"Split **{frames.split.replace('_', ' ')}** · **{time_label(frames.duration_s)}** long · **{frames.n_steps}** actions · "
        f"final accuracy **{_pct(final_acc)}** · route coverage **{_pct(final_cov)}**",
        help="Final accuracy: the share of the cells drawn at the end that lie on the target route."
        f"{reported} Route coverage: the share of the route's cells drawn at the end."
        + ("" if is_defined(final_acc) else f" Accuracy is {final_acc}."),
    )


def participants(frames: SessionFrames) -> None:
    """Each participant's role, id and persona, with their TeamQ profile one click away."""
    cols = st.columns(len(frames.participants) or 1, gap="small")
    for col, p in zip(cols, frames.participants):
        with col:
            words = " · ".join(md_text(w) for w in persona_words(p)) or "no persona in the data"
            line = f"**{ROLE_TITLES.get(p.role, p.role)}** {md_text(p.id)} · {words}"
            profile = teamq_profile(p.persona.teamq)
            if not is_defined(profile):
                st.caption(f"{line} · TeamQ {profile}")
                continue
            text, button = st.columns([2.6, 1], vertical_alignment="center", gap="small")
            text.caption(line)
            with button.popover(
                f"TeamQ {fmt(profile.mean, 1)}/4", type="tertiary", help=f"The {p.role}'s TeamQ answers"
            ):
                teamq_table(profile)


def teamq_table(profile: TeamQProfile) -> None:
    """The profile as two small tables: the mean per dimension, then every item's answer."""
    bar = "▇"
    rows = "\n".join(
        f"| {d} | {bar * round(m * 2)}{'▁' * (8 - round(m * 2))} {fmt(m, 1)} |" for d, m in profile.dimensions
    )
    items = "\n".join(f"| {i.dimension} | {i.text} | {i.score} {i.answer} |" for i in profile.items)
    st.markdown(
        f"**TeamQ profile**: mean {fmt(profile.mean, 2)} of 4 over the 14 items (0 Never ... 4 Always)\n\n"
        f"| dimension | mean (0-4) |\n|---|---|\n{rows}\n\n| dimension | item | answer |\n|---|---|---|\n{items}"
    )
