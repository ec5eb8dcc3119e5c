"""The Map editor page under AppTest: strokes injected as the canvas sends them become landmarks,
route, start and finish; rename, blocked, undo/redo; the work survives a page switch; a stroke that
cannot be read leaves the map as it was, and what the editor says about it stays until the next
action; viewers look but do not edit."""

from __future__ import annotations

import pytest
from test_coding_app import signed_in
from test_mapedit_strokes import centre, free_path, rect

from corpus.mapedit.draft import FOLLOWER, GUIDE
from corpus.store import Store

PAGE = "pages/map-editor.py"


@pytest.fixture
def accounts(tmp_path, monkeypatch):
    data = tmp_path / "data"
    data.mkdir()
    monkeypatch.setenv("GROUNDWORK_DATA_DIR", str(data))
    monkeypatch.delenv("GROUNDWORK_DB_URL", raising=False)
    store = Store.open(data)
    store.create_user("lead", "lead-password", "lead")
    store.create_user("ann", "ann-password", "coder")
    store.create_user("guest", "guest-password", "viewer")
    return data


def editor(at):
    return at.session_state["map_editor"]


def stroke(at, *objects) -> None:
    """Send objects as the drawing canvas does (its state under the current canvas key), then rerun."""
    at.session_state[f"me_canvas_{editor(at).generation}"] = {
        "drawing": {"raw": {"objects": list(objects)}, "data": None}
    }
    at.run()
    assert not at.exception, [e.value for e in at.exception]


def table(at, column: str):
    """The page's table that has ``column``."""
    return next(df.value for df in at.dataframe if column in df.value.columns)


def frame_of(at):
    from corpus.mapedit.strokes import CanvasFrame

    return CanvasFrame(*editor(at).context["frame"])


def blank_map(at, rows=10, cols=12):
    at.number_input(key="me_blank_rows").set_value(rows)
    at.number_input(key="me_blank_cols").set_value(cols)
    at.text_input(key="me_blank_id").input("hand-map")
    at.button(key="me_blank_start").click().run()
    assert not at.exception, [e.value for e in at.exception]


def test_a_coder_draws_a_map_and_the_work_survives_a_page_switch(accounts):
    at = signed_in("ann", "ann-password", PAGE)
    blank_map(at)
    f = frame_of(at)
    assert (f.rows, f.cols) == (10, 12)
    (x0, y0), (x1, y1) = centre(f, (1, 6)), centre(f, (3, 9))
    stroke(at, rect(x0, y0, x1, y1))
    d = editor(at).draft
    assert d.names == ["landmark_1"] and len(d.landmark("landmark_1").cells) == 12
    listed = table(at, "landmark")
    assert listed.iloc[0]["cells"] == 12 and listed.iloc[0]["rows"] == "1-3" and listed.iloc[0]["columns"] == "6-9"

    at.text_input(key="me_name_landmark_1").input("fossil bed").run()
    at.toggle(key="me_blocked_fossil bed").set_value(False).run()
    assert editor(at).draft.landmark("fossil bed").type == "open"

    at.radio(key="me_tool_guide").set_value("route").run()
    cw = f.cell_px[0]
    path = [(5, 0), (5, 1), (5, 2), (6, 2), (7, 2)]
    stroke(at, free_path([centre(f, c) for c in path], 0.6 * cw))
    assert editor(at).draft.route == tuple(path)
    for tool, cell in (("start", (5, 0)), ("finish", (7, 2))):
        at.radio(key="me_tool_guide").set_value(tool).run()
        x, y = centre(f, cell)
        stroke(
            at,
            {
                "type": "Circle",
                "radius": 4,
                "originX": "left",
                "originY": "center",
                "left": x - 5,
                "top": y,
                "width": 8,
                "height": 8,
                "strokeWidth": 2,
            },
        )
    d = editor(at).draft
    assert (d.start, d.finish) == ((5, 0), (7, 2))
    assert "No problems" in at.success[0].value
    assert "not rewritten here" in " ".join(c.value for c in at.caption)

    at.button(key="me_undo").click().run()
    assert editor(at).draft.finish is None
    at.button(key="me_redo").click().run()
    assert editor(at).draft.finish == (7, 2)

    at.switch_page("pages/data.py").run()
    at.switch_page(PAGE).run()
    assert not at.exception
    assert editor(at).draft == d
    assert table(at, "landmark").iloc[0]["landmark"] == "fossil bed"


def test_a_stroke_that_cannot_be_read_is_reported_and_the_map_kept(accounts):
    at = signed_in("ann", "ann-password", PAGE)
    blank_map(at)
    before = editor(at).draft
    stroke(at, {"type": "IText", "text": "hello"})
    assert editor(at).draft == before
    assert any("Stroke not taken" in w.value and "IText" in w.value for w in at.warning)
    at.run()  # a run the canvas asks for on its own: the message stays until the next action
    assert any("Stroke not taken" in w.value and "IText" in w.value for w in at.warning)
    # A landmark stroke on the Follower's map with no landmark to move.
    at.radio(key="me_view").set_value(FOLLOWER).run()
    f = frame_of(at)
    stroke(at, rect(*centre(f, (1, 1)), *centre(f, (2, 2))))
    assert editor(at).draft == before
    assert any("choose the landmark to move" in w.value for w in at.warning)
    assert not any("IText" in w.value for w in at.warning)  # replaced by the newer message
    # An edit: what was said about the map before it goes.
    at.radio(key="me_view").set_value(GUIDE).run()
    stroke(at, rect(*centre(f, (1, 1)), *centre(f, (2, 2))))
    assert editor(at).draft != before
    assert not any("choose the landmark to move" in w.value for w in at.warning)


def test_moving_a_landmark_on_the_follower_s_map(accounts):
    at = signed_in("ann", "ann-password", PAGE)
    blank_map(at)
    f = frame_of(at)
    stroke(at, rect(*centre(f, (1, 1)), *centre(f, (2, 2))))
    at.number_input(key="me_shift_rows").set_value(4)
    at.number_input(key="me_shift_cols").set_value(5)
    at.button(key="me_shift").click().run()
    d = editor(at).draft
    assert d.moved() == ["landmark_1"] and d.landmark("landmark_1", FOLLOWER).cells == ((5, 6), (5, 7), (6, 6), (6, 7))
    assert len(at.get("image")) == 2  # the Guide's and the Follower's map side by side
    assert bool(table(at, "landmark").iloc[0]["moved for the Follower"])


def test_a_viewer_looks_but_does_not_edit(accounts):
    at = signed_in("guest", "guest-password", PAGE)
    assert not at.exception
    assert at.button(key="me_blank_start").disabled
    assert "Viewers open the dataset's maps" in " ".join(c.value for c in at.caption)
    at.button(key="me_ds_start").click().run()  # look at the sample's first map
    assert not at.exception
    assert editor(at).draft.map_id == "map_a" and len(table(at, "landmark")) == 12
    assert not at.radio(key="me_view").disabled and "me_tool_guide" not in [r.key for r in at.radio]
    assert [t.key for t in at.text_input if str(t.key).startswith("me_name_")] == []
    assert at.button(key="me_undo").disabled and at.button(key="me_save").disabled
    before = editor(at).draft
    stroke(at, rect(10, 10, 200, 200))  # a drawing sent anyway is not taken
    assert editor(at).draft == before


def test_only_a_lead_attaches_a_map(accounts, tmp_path, monkeypatch):
    """Attaching rewrites the dataset (and moves its coding tasks): a coder draws and saves a draft,
    and is told to ask a lead; the lead gets the button."""
    from helpers import tiny_map, tiny_session

    from corpus.loading.write import write_dataset
    from corpus.model import DatasetInfo

    root = accounts / "datasets"
    write_dataset(
        root / "tiny", DatasetInfo(name="tiny", description="", synthetic=True), [tiny_map()], [tiny_session("s1")]
    )
    monkeypatch.setenv("GROUNDWORK_DATASET_ROOTS", str(root))
    for who, sees_button in (("ann", False), ("lead", True)):
        at = signed_in(who, f"{who}-password", PAGE)
        at.button(key="me_ds_start").click().run()  # the dataset's map
        assert not at.exception, [e.value for e in at.exception]
        assert (
            at.button(key="me_attach") is not None
            if sees_button
            else not [b for b in at.button if b.key == "me_attach"]
        )
        captions = " ".join(c.value for c in at.caption)
        assert ("which is a lead's action: save the map as a draft and ask a lead" in captions) is not sees_button
