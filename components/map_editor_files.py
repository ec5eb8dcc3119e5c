"""Where a map comes from and where it goes: start (image, dataset map, blank grid, file, draft),
drafts, the map JSON download, and attaching the map to sessions of the dataset.

Every start or open is an edit like any other (undo brings the previous work back); bad input
(not an image, too large, a JSON that is not a map) is reported and the current work is kept.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import streamlit as st

from analysis.format import fmt
from components.map_editor_state import EditorState, commit, controlled, notice, plain
from corpus.importers.asciimap import grid_for_image, safe_id
from corpus.limits import DRAFT_BYTES_PER_ACCOUNT, DRAFTS_PER_ACCOUNT, NAME_CHARS
from corpus.loading.dataset import SAMPLE_DATA, Corpus
from corpus.loading.validate import DatasetError
from corpus.mapedit import checks, mapfile
from corpus.mapedit import draft as dr
from corpus.mapedit.image import MAX_IMAGE_BYTES, MapImage, limits_text
from corpus.store import AccessDenied, StoreError, User
from services import map_editor as service

NEW_GRID = "(a new grid)"


def _start(ed: EditorState, make, label: str, image: MapImage | None = None) -> None:
    try:
        commit(ed, make(), label, image)
    except dr.EditError as exc:
        notice(ed, "error", f"{exc}. The current map is unchanged.")
        return
    ed.generation += 1
    st.session_state["me_view"] = dr.GUIDE


def _image_start(ed: EditorState, corpus: Corpus, image: MapImage) -> None:
    s = st.session_state
    source = s.get("me_img_grid", NEW_GRID)
    k = image.digest[:12]
    if source == NEW_GRID:

        def make():
            d = dr.new_draft(
                s.get(f"me_img_id_{k}") or "map",
                (s[f"me_img_rows_{k}"], s[f"me_img_cols_{k}"]),
                name=Path(image.name).stem,
            )
            return dr.with_image(d, image.digest)
    else:

        def make():
            return dr.from_gridmap(corpus.maps[source], image=image.digest)

    _start(ed, make, f"start over {image.name}", image)


def _map_label(corpus: Corpus, map_id: str) -> str:
    m = corpus.maps[map_id]
    used = sum(corpus.meta(sid).map_id == map_id for sid in corpus.sessions)
    return f"{map_id} ({m.grid_size[0]} x {m.grid_size[1]}, {len(m.landmarks)} landmarks, {len(m.route)} route cells, {used} sessions)"


def _from_image(ed: EditorState, corpus: Corpus) -> None:
    up = st.file_uploader(
        f"Map image: {limits_text()}",
        type=["png", "jpg", "jpeg"],
        key="me_upload",
        max_upload_size=MAX_IMAGE_BYTES // 2**20,
    )
    if up is None:
        return
    try:
        image = service.checked_image(up.getvalue(), up.name)
    except dr.EditError as exc:
        st.error(f"{plain(exc)}. The current map is unchanged.")
        return
    rows, cols = grid_for_image(image.width, image.height)
    st.caption(
        f"{image.width} x {image.height} pixels. A new grid has {rows} x {cols} square cells by default "
        "(60 on the longer side, as the platform importer rasterizes this image's ink)."
    )
    sources = [NEW_GRID, *sorted(m for m in corpus.maps)]
    source = st.selectbox(
        "Grid",
        sources,
        key="me_img_grid",
        format_func=lambda m: m if m == NEW_GRID else f"of the dataset's map {_map_label(corpus, m)}",
        help="A dataset map's grid (and what it holds) is what its sessions were drawn on.",
    )
    if source == NEW_GRID:
        c1, c2, c3 = st.columns(3)
        k = image.digest[:12]  # another image starts from its own defaults
        c1.number_input("Rows", 1, 1000, rows, key=f"me_img_rows_{k}")
        c2.number_input("Columns", 1, 1000, cols, key=f"me_img_cols_{k}")
        c3.text_input("Map id", safe_id(Path(image.name).stem), key=f"me_img_id_{k}")
    st.button(
        "Start the map over this image",
        key="me_img_start",
        type="primary",
        disabled=not ed.can_edit,
        on_click=_image_start,
        args=(ed, corpus, image),
    )


def _from_dataset(ed: EditorState, corpus: Corpus) -> None:
    map_id = st.selectbox("Map", sorted(corpus.maps), key="me_ds_map", format_func=lambda m: _map_label(corpus, m))
    st.button(
        "Open this map",
        key="me_ds_start",
        disabled=map_id is None,
        on_click=lambda: _start(ed, lambda: dr.from_gridmap(corpus.maps[map_id]), f"open {map_id}"),
    )


def _blank(ed: EditorState) -> None:
    c1, c2, c3 = st.columns(3)
    c1.number_input("Rows", 1, 1000, 40, key="me_blank_rows")
    c2.number_input("Columns", 1, 1000, 60, key="me_blank_cols")
    c3.text_input("Map id", "map", key="me_blank_id")
    s = st.session_state
    st.button(
        "Start a blank map",
        key="me_blank_start",
        disabled=not ed.can_edit,
        on_click=lambda: _start(
            ed,
            lambda: dr.new_draft(s.get("me_blank_id") or "map", (s["me_blank_rows"], s["me_blank_cols"])),
            "blank map",
        ),
    )


def _open_file(ed: EditorState) -> None:
    up = st.session_state.get("me_json")
    if up is None:
        return
    try:
        gm = mapfile.read_map(up.getvalue(), up.name)
    except DatasetError as exc:
        issues = "; ".join(f"{i.record} {i.field}: {i.message}" for i in exc.report.errors[:5])
        notice(ed, "error", f"{up.name} was not opened: {issues}. The current map is unchanged.")
        return
    _start(ed, lambda: dr.from_gridmap(gm), f"open {up.name}")


def _open_draft(ed: EditorState, path: Path) -> None:
    try:
        draft, image = mapfile.open_draft(path)
    except dr.EditError as exc:
        notice(ed, "error", f"{exc}. The current map is unchanged.")
        return
    _start(ed, lambda: draft, f"open draft {path.stem}", image)


def _delete_draft(ed: EditorState, info: mapfile.DraftInfo) -> None:
    mapfile.delete_draft(info.path)
    notice(ed, "success", f"Draft {info.name} deleted.")


def _open(ed: EditorState, user: User) -> None:
    st.file_uploader(
        "A map file: the JSON of docs/data-format.md (e.g. exported here) or an ASCII grid map (.txt, as the platform "
        "writes it)",
        type=["json", "txt"],
        key="me_json",
    )
    st.button("Open the map file", key="me_json_open", on_click=_open_file, args=(ed,))
    drafts = mapfile.list_drafts(service.drafts_dir())
    if drafts:
        pick = st.selectbox(
            "Saved drafts",
            drafts,
            key="me_draft_pick",
            format_func=lambda i: (
                f"{i.name} ({i.map_id}, {i.grid_size[0]} x {i.grid_size[1]}, saved {i.saved_at} by {i.saved_by or '?'})"
            ),
        )
        c1, c2 = st.columns(2)
        c1.button("Open the draft", key="me_draft_open", on_click=_open_draft, args=(ed, pick.path))
        if pick.saved_by == user.username or user.is_lead:
            c2.button(
                "Delete the draft",
                key="me_draft_delete",
                on_click=_delete_draft,
                args=(ed, pick),
                icon=":material/delete:",
                help="Drafts are kept per account (at most "
                f"{DRAFTS_PER_ACCOUNT} and {DRAFT_BYTES_PER_ACCOUNT // 2**20} MiB each); a lead may delete any.",
            )
    else:
        st.caption("No saved drafts yet.")


def start_panel(ed: EditorState, corpus: Corpus, user: User) -> None:
    with st.expander("Start or open a map", expanded=ed.draft is None, icon=":material/add_photo_alternate:"):
        if not ed.can_edit:
            st.caption(
                "Viewers open the dataset's maps, map files and drafts to look at them; leads and coders "
                "start, edit, save and attach maps."
            )
        tabs = st.tabs(["From a map image", "From this dataset", "Blank grid", "Open a file or a draft"])
        with tabs[0]:
            _from_image(ed, corpus)
        with tabs[1]:
            _from_dataset(ed, corpus)
        with tabs[2]:
            _blank(ed)
        with tabs[3]:
            _open(ed, user)


# -- where the map goes ------------------------------------------------------------------------


def _save_draft(ed: EditorState, user_name: str) -> None:
    name = str(st.session_state.get("me_draft_name") or ed.draft.map_id)[:NAME_CHARS]
    try:
        path = mapfile.save_draft(service.drafts_dir(), name, ed.draft, ed.image, saved_by=user_name)
    except dr.EditError as exc:
        notice(ed, "error", f"{exc}.")
        return
    notice(ed, "success", f"Draft saved as {path.stem}.")


def _attach(ed: EditorState, corpus: Corpus, user: User) -> None:
    sessions = list(st.session_state.get("me_attach_sessions") or [])
    try:
        result, moved = service.attach(user, Path(corpus.root), dr.to_gridmap(ed.draft), sessions)
    except DatasetError as exc:
        issues = "; ".join(f"{i.record} {i.field}: {i.message}" for i in exc.report.errors[:5])
        notice(ed, "error", f"Not attached: {issues}. The dataset is unchanged.")
        return
    except (AccessDenied, StoreError) as exc:
        notice(ed, "error", f"Not attached: {exc}.")
        return
    ed.last_attach = result
    tasks = (
        f" The coding tasks on it now name the rewritten dataset, labels and gold kept: {', '.join(moved)}."
        if moved
        else ""
    )
    notice(
        ed,
        "success",
        f"Map {result.map_id} attached to {', '.join(result.scores)}; the dataset was written again "
        f"and validated.{tasks}",
    )


def _set_id(ed: EditorState) -> None:
    new = str(st.session_state.get("me_map_id", ""))
    try:
        commit(ed, dr.set_id(ed.draft, new), f"map id {new}")
    except dr.EditError as exc:
        notice(ed, "error", str(exc))


def _fmt(v: float | None) -> str:
    return "undefined" if v is None else fmt(v, 2)


def output_panel(ed: EditorState, corpus: Corpus, user: User) -> None:
    draft = ed.draft
    problems = checks.errors(checks.check(draft))
    st.subheader("Save and use the map")
    controlled("me_map_id", draft.map_id)
    st.text_input(
        "Map id",
        key="me_map_id",
        on_change=_set_id,
        args=(ed,),
        disabled=not ed.can_edit,
        help="Names the map's file in a dataset; sessions point to it by this id.",
    )
    c1, c2 = st.columns(2)
    with c1:
        st.text_input("Draft name", draft.map_id, key="me_draft_name", max_chars=NAME_CHARS)
        st.button(
            "Save draft",
            key="me_save",
            icon=":material/save:",
            disabled=not ed.can_edit,
            on_click=_save_draft,
            args=(ed, user.username),
            help="Work in progress, problems and all, with its image.",
        )
    with c2:
        text = None if problems else mapfile.export_text(draft)
        st.download_button(
            "Download the map JSON",
            text or "",
            file_name=f"{draft.map_id}.json",
            mime="application/json",
            key="me_download",
            icon=":material/download:",
            disabled=text is None,
        )
        st.caption(
            f"Fix the {len(problems)} error(s) listed under Checks first."
            if problems
            else "Appendix D of the ALMANAC paper, extended: grid_size, start_cell, finish_cell, landmarks "
            "(cells, type, summary), route, follower_landmarks."
        )
    st.markdown("**Attach to sessions of this dataset**")
    if Path(corpus.root).resolve() == SAMPLE_DATA.resolve() or not Path(corpus.root).is_dir():
        st.caption(
            "The bundled sample corpus (and a dataset read from a .zip) is not rewritten here; "
            "use `python -m corpus maps attach` on a copy."
        )
        return
    if not user.is_lead:
        st.caption(
            "Attaching rewrites the dataset (its coding tasks move with it), which is a lead's action: "
            "save the map as a draft and ask a lead to attach it."
        )
        return
    same_grid = [sid for sid in corpus.sessions if tuple(corpus.map_of(sid).grid_size) == tuple(draft.grid_size)]
    default = [sid for sid in same_grid if not corpus.map_of(sid).route]
    st.multiselect(
        "Sessions",
        same_grid,
        default=default,
        key="me_attach_sessions",
        help=f"Sessions drawn on a {draft.grid_size[0]} x {draft.grid_size[1]} grid; those whose map has no route are chosen.",
    )
    st.button(
        "Attach the map",
        key="me_attach",
        type="primary",
        disabled=not ed.can_edit or bool(problems),
        on_click=_attach,
        args=(ed, corpus, user),
    )
    result = ed.last_attach
    if result is not None and Path(result.dest) == Path(corpus.root):
        st.dataframe(
            pd.DataFrame(
                [
                    {
                        "session": sid,
                        "previous map": result.previous[sid],
                        "final accuracy": _fmt(sc.accuracy),
                        "route coverage": _fmt(sc.coverage),
                        "distance-weighted": _fmt(sc.distance_weighted),
                    }
                    for sid, sc in result.scores.items()
                ]
            ),
            hide_index=True,
            key="me_attach_result",
        )
