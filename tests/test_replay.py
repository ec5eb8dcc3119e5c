"""The Replay screen: per-session frame data, the grid canvas, exports, and the page under AppTest."""

from __future__ import annotations

import importlib.util
import io
import json
import re
from pathlib import Path

import numpy as np
import pytest
from PIL import Image
from streamlit.testing.v1 import AppTest

from analysis import replay as rp
from components import grid_canvas
from corpus.dataset import load_dir, load_sample
from corpus.model import Action, Checkpoint

ROOT = Path(__file__).resolve().parent.parent
APP = str(ROOT / "app.py")


def _bench():
    spec = importlib.util.spec_from_file_location("bench_replay", ROOT / "bench" / "bench_replay.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture()
def tiny(tmp_path):
    from helpers import write_tiny

    return load_dir(write_tiny(tmp_path / "ds"))


@pytest.fixture()
def tiny_frames(tiny):
    return rp.frames_for(tiny, "s1")


# -- frame data ---------------------------------------------------------------------------------


def test_timeline_follows_the_canvas(tiny_frames):
    tl = tiny_frames.timeline
    assert list(tl["type"]) == ["message", "draw", "draw", "message", "erase", "undo"]
    # Route of the tiny map: 6 cells; (0,0),(0,1),(0,2) drawn at action 1 are on it, (1,2),(2,2) are not.
    assert list(tl["n_drawn"]) == [0, 3, 5, 5, 4, 5]
    assert tl["coverage"].tolist() == pytest.approx([0, 0.5, 0.5, 0.5, 0.5, 0.5])
    assert np.isnan(tl["accuracy"].iat[0])
    assert tl["accuracy"].tolist()[1:] == pytest.approx([1.0, 0.6, 0.6, 0.75, 0.6])
    assert list(tl["alignment"]) == ["aligned", "aligned", "not aligned", "not aligned", "aligned", "aligned"]
    assert tiny_frames.final_scores() == {"accuracy": pytest.approx(0.6), "coverage": pytest.approx(0.5), "n_drawn": 5}


def test_cell_codes_show_each_category(tiny_frames):
    # Action 2 drew (1,2) and (2,2), off the route.
    guide = tiny_frames.codes(2, "guide")
    assert guide[4, 4] == rp.BLOCKED and guide[1, 8] == rp.LANDMARK
    assert guide[0, 0] == rp.DRAWN_ON_ROUTE  # the start cell, drawn over
    assert guide[0, 1] == rp.DRAWN_ON_ROUTE
    assert guide[1, 2] == rp.ADDED and guide[2, 2] == rp.ADDED
    assert guide[1, 3] == rp.ROUTE and guide[3, 3] == rp.FINISH
    # The follower's map has the lake elsewhere and no route unless asked.
    follower = tiny_frames.codes(2, "follower")
    assert follower[4, 4] == rp.EMPTY and follower[6, 6] == rp.BLOCKED
    assert follower[1, 3] == rp.EMPTY and follower[0, 1] == rp.DRAWN
    with_route = tiny_frames.codes(2, "follower", show_route=True)
    assert with_route[1, 3] == rp.ROUTE and with_route[0, 1] == rp.DRAWN_ON_ROUTE
    # Action 4 erased (2,2); action 5 undid that erase.
    assert tiny_frames.codes(4, "guide")[2, 2] == rp.ERASED
    after_undo = tiny_frames.codes(5, "guide")
    assert after_undo[2, 2] == rp.ADDED and after_undo[1, 2] == rp.DRAWN
    # Before any action: the map alone, with the start.
    empty = rp.cell_codes(tiny_frames.layers, rp.StepState.empty((10, 12)), "guide")
    assert empty[0, 0] == rp.START and not np.isin(empty, [rp.DRAWN, rp.ADDED, rp.ERASED]).any()


def test_jump_targets_and_playback(tiny_frames):
    f = tiny_frames
    assert f.targets["message"].tolist() == [0, 3]
    assert f.targets["drawing"].tolist() == [1, 2, 4, 5]
    assert f.targets["not_aligned"].tolist() == [2, 3]
    assert rp.next_target(f, "message", 0) == 3
    assert rp.next_target(f, "message", 3) is None
    assert rp.prev_target(f, "drawing", 4) == 2
    assert rp.next_target(f, "not_aligned", -1) == 2
    # Uniform: `speed` actions per second. Real time: the session clock (0, 5, 9, 12, 15, 20 s).
    assert rp.play_target(f, 0, 1.0, "uniform", 2.0) == 2
    assert rp.play_target(f, 4, 10.0, "uniform", 2.0) == 5
    assert rp.play_target(f, 0, 4.9, "real_time", 1.0) == 0
    assert rp.play_target(f, 0, 5.0, "real_time", 1.0) == 1
    assert rp.play_target(f, 1, 2.0, "real_time", 4.0) == 3  # from 5 s, 8 s of session time later
    assert rp.step_at_time(f, 14.9) == 3


def test_nearest_checkpoint_prefers_the_actors_own(tiny):
    s = tiny.session("s1")
    s.checkpoints = [
        Checkpoint(role="guide", index=1, progress=0.25, action_index=1, elapsed_s=5, team_goal="find the lake"),
        Checkpoint(role="follower", index=1, progress=0.25, action_index=2, elapsed_s=9, team_goal="drawing"),
        Checkpoint(role="follower", index=2, progress=0.5, action_index=5, elapsed_s=20, team_goal="nearly there"),
    ]
    f = rp.build_frames(s, tiny.map_of("s1"))
    assert f.targets["checkpoint"].tolist() == [1, 2, 5]
    pos, cp = rp.nearest_checkpoint(f, 4, "follower")
    assert (pos, cp.index, cp.team_goal) == (5, 2, "nearly there")
    pos, cp = rp.nearest_checkpoint(f, 4, "guide")
    assert (pos, cp.role) == (1, "guide")
    # Equally far: the earlier one (already answered).
    s.checkpoints = s.checkpoints[1:]
    f = rp.build_frames(s, tiny.map_of("s1"))
    assert rp.nearest_checkpoint(f, 3, "guide")[0] == 2  # no guide checkpoint: the nearest of any role, tie -> earlier
    assert rp.nearest_checkpoint(f, 4, "follower")[0] == 5


def test_bad_sessions_raise_a_clear_error(tiny):
    s = tiny.session("s1")
    with pytest.raises(rp.ReplayError, match=r"Session 's1' cannot be replayed: its map 'm1' is missing"):
        rp.build_frames(s, None)
    bad = s.model_copy(update={"actions": [*s.actions, Action(index=6, timestamp=30, role="follower", type="draw", content=[(3, 3), (10, 2)])]})
    with pytest.raises(rp.ReplayError, match=r"action 6 \(follower draw, content\[1\]\) references cell \[10, 2\], outside the 10x12 grid"):
        rp.build_frames(bad, tiny.map_of("s1"))


def test_transcript_rows(tiny_frames):
    rows = tiny_frames.transcript
    assert [r["time_label"] for r in rows] == ["0:00", "0:05", "0:09", "0:12", "0:15", "0:20"]
    assert rows[0]["text"] == "start at the top left"
    assert rows[1]["text"] == "drew 3 cells" and rows[4]["text"] == "erased 1 cell"
    assert rows[5]["text"] == "undid the last edit" and rows[1]["icon"]


# -- the canvas ---------------------------------------------------------------------------------


def test_figure_is_one_heatmap_with_labels_and_the_misplaced_landmark(tiny_frames):
    f = tiny_frames
    fig = grid_canvas.figure(f.grid_map, f.state(2), view="guide", layers=f.layers)
    heatmaps = [t for t in fig.data if t.type == "heatmap"]
    assert len(heatmaps) == 1
    assert np.array_equal(np.asarray(heatmaps[0].z), f.codes(2, "guide"))
    texts = {a.text for a in fig.layout.annotations}
    assert {"lake", "old mill", "lake on the follower's map"} <= texts
    rects = [(s.x0, s.x1, s.y0, s.y1, s.line.dash) for s in fig.layout.shapes]
    # The lake: rows 4-5, cols 4-5 on the guide's map (solid), rows 6-7, cols 6-7 on the follower's (dashed).
    assert (3.5, 5.5, 3.5, 5.5, "solid") in rects and (5.5, 7.5, 5.5, 7.5, "dash") in rects
    legend = {t.name for t in fig.data if t.type == "scatter" and t.showlegend is not False}
    assert {"drawn this step", "drawn on the route", "target route", "landmark (blocked)"} <= legend
    assert fig.layout.yaxis.range == (9.5, -0.5)  # row 0 on top
    follower = grid_canvas.figure(f.grid_map, f.state(2), view="follower", layers=f.layers)
    assert "target route" not in {t.name for t in follower.data}
    json.loads(follower.to_json())


def test_figure_handles_a_100x100_grid_with_1000_actions():
    session, grid_map = _bench().synthetic_session(100, 100, 1000, seed=3)
    f = rp.build_frames(session, grid_map)
    assert f.n_steps == 1000
    for t in (0, 500, 999):
        fig = grid_canvas.figure(f.grid_map, f.state(t), layers=f.layers)
        assert np.asarray(fig.data[0].z).shape == (100, 100)
        assert len(fig.to_json()) < 200_000  # one small integer array, not one shape per cell
    assert f.state(999).n_drawn == f.timeline["n_drawn"].iat[-1] > 0


def test_a_map_without_a_route_replays_with_the_drawing_only(tiny):
    """Imported image maps carry landmarks but no route yet: the replay still plays, exports work,
    and the canvas shows no route and no finish."""
    session = tiny.sessions["s1"]
    grid_map = tiny.maps[session.map_id].model_copy(update={"route": [], "finish_cell": None})
    f = rp.build_frames(session, grid_map)
    assert f.layers.finish is None and not f.layers.route.any()
    last = f.state(f.n_steps - 1)
    codes = rp.cell_codes(f.layers, last, "guide")
    assert not (codes == rp.ROUTE).any() and not (codes == rp.FINISH).any()
    assert int(((codes == rp.DRAWN) | (codes == rp.ADDED)).sum()) == last.n_drawn
    fig = grid_canvas.figure(f.grid_map, last, layers=f.layers)
    assert list(fig.data[1].text) == ["start"]
    assert Image.open(io.BytesIO(grid_canvas.to_png(f.grid_map, last, layers=f.layers))).format == "PNG"


def test_png_is_drawn_from_the_cell_states(tiny_frames):
    f = tiny_frames
    data = grid_canvas.to_png(f.grid_map, f.state(2), view="guide", layers=f.layers, cell_px=10, caption="s1 action 2")
    img = Image.open(io.BytesIO(data)).convert("RGB")
    pad, head = 8, 28
    assert img.size == (12 * 10 + 2 * pad, 10 * 10 + 2 * pad + head)

    def pixel(r, c):
        return img.getpixel((pad + c * 10 + 6, pad + head + r * 10 + 6))

    def rgb(code):
        h = grid_canvas.CELL_COLORS[code]
        return tuple(int(h[i:i + 2], 16) for i in (1, 3, 5))

    assert pixel(2, 2) == rgb(rp.ADDED)
    assert pixel(0, 2) == rgb(rp.DRAWN_ON_ROUTE)
    assert pixel(9, 0) == rgb(rp.EMPTY)
    assert pixel(2, 3) == rgb(rp.ROUTE)


def test_gif_and_html_animation_have_one_frame_per_step(tiny_frames):
    f = tiny_frames
    gif = Image.open(io.BytesIO(grid_canvas.to_gif(f.grid_map, [f.state(t) for t in range(f.n_steps)])))
    assert gif.format == "GIF" and gif.n_frames == f.n_steps
    fig = grid_canvas.animation_figure(f.grid_map, list(rp.all_states(f)), captions=[r["text"] for r in f.transcript])
    assert len(fig.frames) == f.n_steps
    drawn, on_route, caption = fig.frames[2].data[0], fig.frames[2].data[1], fig.frames[2].data[4]
    assert caption.text == ("drew 2 cells",)
    assert sorted(zip(drawn.y, drawn.x)) == [(1, 2), (2, 2)]  # off the route
    assert sorted(zip(on_route.y, on_route.x)) == [(0, 0), (0, 1), (0, 2)]
    assert fig.layout.images[0].source.startswith("data:image/png;base64,")
    page = grid_canvas.animation_html(f.grid_map, rp.all_states(f))
    # Self-contained: plotly.js inline, no script loaded from elsewhere.
    assert page.lower().startswith("<!doctype html>") and "Plotly.newPlot" in page
    assert not re.search(r"<script[^>]+src=", page) and len(page) > 1_000_000


# -- the page -----------------------------------------------------------------------------------


def _open_replay(tmp_path, monkeypatch, query: dict | None = None) -> AppTest:
    monkeypatch.setenv("GROUNDWORK_DATA_DIR", str(tmp_path / "data"))
    at = AppTest.from_file(APP, default_timeout=60)
    for k, v in (query or {}).items():
        at.query_params[k] = v
    at.run()
    at.switch_page("pages/replay.py").run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _canvas_z(at: AppTest) -> np.ndarray:
    chart = next(c for c in at.get("plotly_chart") if c.proto.id.endswith("replay_canvas_guide"))
    z = json.loads(chart.proto.spec)["data"][0]["z"]
    if isinstance(z, dict):  # plotly's typed-array encoding
        import base64

        arr = np.frombuffer(base64.b64decode(z["bdata"]), dtype={"i1": np.int8, "u1": np.uint8}[z["dtype"]])
        return arr.reshape(z["shape"] if isinstance(z["shape"], list) else [int(x) for x in str(z["shape"]).split(",")])
    return np.asarray(z)


def _current_row(at: AppTest) -> int:
    body = at.html[0].proto.body
    m = re.search(r'class="rp-row[^"]*rp-cur" data-pos="(\d+)"', body)
    assert m, "no highlighted transcript row"
    return int(m.group(1))


def test_stepping_changes_the_frame_and_the_highlight(tmp_path, monkeypatch):
    corpus = load_sample()
    sid = next(iter(corpus.sessions))
    frames = rp.frames_for(corpus, sid)
    at = _open_replay(tmp_path, monkeypatch)
    assert at.title[0].value == "Replay"
    assert at.selectbox(key="replay_session").value == sid
    assert at.slider(key="replay_step").value == 0
    assert _current_row(at) == 0
    assert np.array_equal(_canvas_z(at), frames.codes(0, "guide"))
    assert any("Condition:" in m.value for m in at.markdown)

    first_draw = rp.next_target(frames, "drawing", 0)
    at.button(key="replay_jump_drawing").click().run()
    assert at.slider(key="replay_step").value == first_draw
    z_draw = _canvas_z(at)
    assert np.array_equal(z_draw, frames.codes(first_draw, "guide"))
    assert (z_draw == rp.ADDED).sum() > 0
    assert _current_row(at) == first_draw

    at.button(key="replay_next").click().run()
    assert at.slider(key="replay_step").value == first_draw + 1
    assert _current_row(at) == first_draw + 1
    assert np.array_equal(_canvas_z(at), frames.codes(first_draw + 1, "guide"))

    at.button(key="replay_prev").click().run()
    assert at.slider(key="replay_step").value == first_draw
    at.slider(key="replay_step").set_value(frames.n_steps - 1).run()
    assert _current_row(at) == frames.n_steps - 1
    assert np.array_equal(_canvas_z(at), frames.codes(frames.n_steps - 1, "guide"))
    assert at.button(key="replay_next").disabled


def test_mental_model_and_memory_anchor_are_shown(tmp_path, monkeypatch):
    corpus = load_sample()
    sid, frames = next(
        (s, f) for s in corpus.sessions if len((f := rp.frames_for(corpus, s)).targets["not_aligned"]) and f.checkpoints
    )
    t = int(frames.targets["not_aligned"][0])
    at = _open_replay(tmp_path, monkeypatch, {"session": sid, "step": str(t)})
    mm = frames.mental_models[t]
    text = "\n".join(m.value for m in at.markdown)
    assert f"`{mm.team_goal.code}` {mm.team_goal.text}" in text
    assert ":red[no]" in text and mm.misalignment_reasons[0].text in text
    role = frames.row(t)["role"]
    pos, cp = rp.nearest_checkpoint(frames, t, role)
    assert any(e.label.startswith(f"Memory anchor: checkpoint {cp.index} ({cp.role}") for e in at.expander)


def test_url_query_round_trips(tmp_path, monkeypatch):
    corpus = load_sample()
    sid = list(corpus.sessions)[4]
    frames = rp.frames_for(corpus, sid)
    at = _open_replay(tmp_path, monkeypatch, {"session": sid, "step": "7"})
    assert at.selectbox(key="replay_session").value == sid
    assert at.slider(key="replay_step").value == 7
    assert _current_row(at) == 7
    assert np.array_equal(_canvas_z(at), frames.codes(7, "guide"))
    at.button(key="replay_next").click().run()
    assert at.query_params["session"] == sid
    assert at.query_params["step"] == "8"
    # Another session from the picker starts at its first action, and the URL follows.
    other = list(corpus.sessions)[0]
    at.selectbox(key="replay_session").set_value(other).run()
    assert at.slider(key="replay_step").value == 0
    assert at.query_params["session"] == other
    assert at.query_params["step"] == "0"


def test_a_link_to_an_unknown_session_falls_back_with_a_warning(tmp_path, monkeypatch):
    at = _open_replay(tmp_path, monkeypatch, {"session": "nope", "step": "3"})
    assert any("'nope'" in w.value for w in at.warning)
    assert at.slider(key="replay_step").value == 0


def _broken_sessions_script():
    from components.replay import player, session_frames, session_header
    from corpus.dataset import load_dir
    from corpus.model import Action

    corpus = load_dir("/TMP/ds")
    # The loader rejects such data on import; a corpus changed afterwards must still not break the page.
    corpus.sessions["s2"].map_id = "gone"
    s3 = corpus.sessions["s3"]
    s3.actions.append(Action(index=6, timestamp=30, role="follower", type="draw", content=[(50, 50)]))
    for sid in ("s2", "s3", "s1"):
        frames = session_frames(corpus, sid)
        if frames is not None:
            session_header(frames)
            player(frames)


def test_a_broken_session_shows_an_error_and_the_others_still_play(tmp_path):
    import inspect
    import textwrap

    from helpers import write_tiny

    write_tiny(tmp_path / "ds", n_sessions=3)
    src = textwrap.dedent(inspect.getsource(_broken_sessions_script)).replace("/TMP", str(tmp_path))
    script = tmp_path / "broken.py"
    script.write_text(
        f"import sys\nfrom pathlib import Path\nsys.path.insert(0, {str(ROOT)!r})\nsys.path.insert(0, {str(ROOT / 'tests')!r})\n"
        + src + "\n_broken_sessions_script()\n"
    )
    at = AppTest.from_file(str(script), default_timeout=60).run()
    assert not at.exception, [e.value for e in at.exception]
    errors = [e.value for e in at.error]
    assert any("Session 's2'" in e and "map 'gone' is missing" in e for e in errors)
    assert any("Session 's3'" in e and "[50, 50]" in e and "outside the 10x12 grid" in e for e in errors)
    assert len(at.get("plotly_chart")) >= 2  # s1's canvas and timeline
    at.button(key="replay_next").click().run()
    assert at.slider(key="replay_step").value == 1


def test_play_pause_and_both_maps(tmp_path, monkeypatch):
    at = _open_replay(tmp_path, monkeypatch)
    assert at.button(key="replay_play").label == "Play"
    at.button(key="replay_play").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.session_state["replay_playing"] is True
    assert at.button(key="replay_play").label == "Pause"
    at.button(key="replay_play").click().run()
    assert at.session_state["replay_playing"] is False
    assert at.button(key="replay_play").label == "Play"

    at.radio(key="replay_view").set_value("both").run()
    ids = [c.proto.id for c in at.get("plotly_chart")]
    assert any(i.endswith("replay_canvas_guide") for i in ids) and any(i.endswith("replay_canvas_follower") for i in ids)
    follower = next(c for c in at.get("plotly_chart") if c.proto.id.endswith("replay_canvas_follower"))
    names = {t.get("name") for t in json.loads(follower.proto.spec)["data"]}
    assert "target route" not in names
    at.toggle(key="replay_route_on_follower").set_value(True).run()
    follower = next(c for c in at.get("plotly_chart") if c.proto.id.endswith("replay_canvas_follower"))
    assert "target route" in {t.get("name") for t in json.loads(follower.proto.spec)["data"]}
