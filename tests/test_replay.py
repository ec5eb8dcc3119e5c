"""The Replay screen: per-session frame data, what the player receives, the grid canvas, the exports,
participants, and the page under AppTest (the player itself is driven in chromium by
test_browser_replay.py)."""

from __future__ import annotations

import importlib.util
import io
import json
import re
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest
from PIL import Image
from streamlit.testing.v1 import AppTest

from analysis import replay as rp
from analysis.participants import teamq_profile
from analysis.replay_payload import clean_position, player_payload
from components import grid_canvas
from components.replay.export import standalone_html
from components.replay.player import player_data, player_key
from corpus.escape import md_text
from corpus.loading.dataset import load_dir, load_sample
from corpus.model import Action, Checkpoint
from corpus.values import Undefined

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
    assert tiny_frames.accuracy(0) == Undefined("nothing is drawn yet")


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


def test_jump_targets_from_every_step(tiny_frames):
    f = tiny_frames
    assert f.targets["message"].tolist() == [0, 3]
    assert f.targets["drawing"].tolist() == [1, 2, 4, 5]
    assert f.targets["not_aligned"].tolist() == [2, 3]
    # The next target after each of the six steps (-1: none left).
    assert rp.next_targets(f, "message").tolist() == [3, 3, 3, -1, -1, -1]
    assert rp.next_targets(f, "drawing").tolist() == [1, 2, 4, 4, 5, -1]
    assert rp.next_targets(f, "not_aligned").tolist() == [2, 2, 3, -1, -1, -1]
    assert rp.next_targets(f, "checkpoint").tolist() == [-1] * 6


def test_nearest_checkpoint_prefers_the_actors_own(tiny):
    s = tiny.session("s1")
    s.checkpoints = [
        Checkpoint(role="guide", index=1, progress=0.25, action_index=1, elapsed_s=5, team_goal="find the lake"),
        Checkpoint(role="follower", index=1, progress=0.25, action_index=2, elapsed_s=9, team_goal="drawing"),
        Checkpoint(role="follower", index=2, progress=0.5, action_index=5, elapsed_s=20, team_goal="nearly there"),
    ]
    f = rp.build_frames(s, tiny.map_of("s1"))
    assert f.targets["checkpoint"].tolist() == [1, 2, 5]
    pos, cp = f.checkpoints[rp.nearest_checkpoint(f, 4, "follower")]
    assert (pos, cp.index, cp.team_goal) == (5, 2, "nearly there")
    pos, cp = f.checkpoints[rp.nearest_checkpoint(f, 4, "guide")]
    assert (pos, cp.role) == (1, "guide")
    # Equally far: the earlier one (already answered).
    s.checkpoints = s.checkpoints[1:]
    f = rp.build_frames(s, tiny.map_of("s1"))
    assert (
        f.checkpoints[rp.nearest_checkpoint(f, 3, "guide")][0] == 2
    )  # no guide checkpoint: nearest of any role, tie -> earlier
    assert f.checkpoints[rp.nearest_checkpoint(f, 4, "follower")][0] == 5


def test_bad_sessions_raise_a_clear_error(tiny):
    s = tiny.session("s1")
    with pytest.raises(rp.ReplayError, match=r"Session 's1' cannot be replayed: its map 'm1' is missing"):
        rp.build_frames(s, None)
    bad = s.model_copy(
        update={
            "actions": [
                *s.actions,
                Action(index=6, timestamp=30, role="follower", type="draw", content=[(3, 3), (10, 2)]),
            ]
        }
    )
    with pytest.raises(
        rp.ReplayError,
        match=r"action 6 \(follower draw, content\[1\]\) references cell \[10, 2\], outside the 10x12 grid",
    ):
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
    payload = player_payload(f)
    assert payload["finish"] is None and payload["route"] == []
    assert (
        payload["steps"]["coverage"] == [None] * f.n_steps and payload["coverage_undefined"] == "the map has no route"
    )


def test_frame_image_is_drawn_from_the_cell_states(tiny_frames):
    f = tiny_frames
    img = grid_canvas.frame_image(
        f.grid_map, f.state(2), view="guide", layers=f.layers, cell_px=10, caption="s1 action 2"
    )
    pad, head = 8, 28
    assert img.size == (12 * 10 + 2 * pad, 10 * 10 + 2 * pad + head)

    def pixel(r, c):
        return img.getpixel((pad + c * 10 + 6, pad + head + r * 10 + 6))

    assert pixel(2, 2) == _rgb(rp.ADDED)
    assert pixel(0, 2) == _rgb(rp.DRAWN_ON_ROUTE)
    assert pixel(9, 0) == _rgb(rp.EMPTY)
    assert pixel(2, 3) == _rgb(rp.ROUTE)


def _rgb(code: int) -> tuple[int, int, int]:
    h = grid_canvas.CELL_COLORS[code]
    return tuple(int(h[i : i + 2], 16) for i in (1, 3, 5))


def test_gif_has_one_frame_per_step(tiny_frames):
    f = tiny_frames
    gif = Image.open(io.BytesIO(grid_canvas.to_gif(f.grid_map, [f.state(t) for t in range(f.n_steps)])))
    assert gif.format == "GIF" and gif.n_frames == f.n_steps


# -- what the player receives -------------------------------------------------------------------


def test_payload_rebuilds_every_frame_from_the_cell_changes(tiny):
    """The browser applies each step's added and removed cells; done here the same way, every step
    gives the canvas of corpus.canvas, and the bases are cell_codes' categories of each view."""
    s = tiny.session("s1")
    s.checkpoints = [
        Checkpoint(role="follower", index=1, progress=0.25, action_index=2, elapsed_s=9, team_goal="drawing")
    ]
    f = rp.build_frames(s, tiny.map_of("s1"))
    p = json.loads(json.dumps(player_data(player_payload(f), {"step": 0})))  # what the browser gets
    rows, cols = p["grid"]
    assert (rows, cols) == (10, 12) and p["steps"]["n"] == 6
    mask = np.zeros(rows * cols, dtype=bool)
    for t in range(f.n_steps):
        mask[p["steps"]["removed"][t]] = False
        mask[p["steps"]["added"][t]] = True
        assert np.array_equal(mask.reshape(rows, cols), f.history.mask(t)), t
    for name, view, route in (
        ("guide", "guide", True),
        ("follower", "follower", False),
        ("follower_route", "follower", True),
    ):
        digits = np.frombuffer(p["bases"][name].encode(), dtype=np.uint8) - ord("0")
        assert np.array_equal(digits.reshape(rows, cols), rp.cell_codes(f.layers, None, view, route)), name
    assert p["start_cell"] == 0 and p["finish"] == 3 * 12 + 3 and p["start"] == {"step": 0}  # the cell, the position
    assert sorted(p["route"]) == [0, 1, 2, 15, 27, 39]
    assert p["cells"]["colors"][rp.ADDED] == grid_canvas.CELL_COLORS[rp.ADDED]
    assert p["cells"]["codes"]["erased"] == rp.ERASED
    assert p["next"]["drawing"] == [1, 2, 4, 4, 5, -1]
    assert p["steps"]["anchor"] == [0] * 6  # the only checkpoint, whoever acts
    assert p["checkpoints"][0]["pos"] == 2 and p["checkpoints"][0]["answers"][0] == ["Team goal", "drawing"]
    assert p["steps"]["text"][1] == "drew 3 cells" and p["steps"]["time_label"][5] == "0:20"
    assert p["steps"]["coverage"] == [0.0, 0.5, 0.5, 0.5, 0.5, 0.5]
    # Mental models: two distinct ones (aligned, not aligned), referenced per step.
    assert p["steps"]["mm"] == [0, 0, 1, 1, 0, 0] and len(p["mental_models"]) == 2
    not_aligned = p["mental_models"][1]
    assert not_aligned["aligned"] is False and not_aligned["reasons"] == [
        ["n2", "Different understanding of the current state"]
    ]
    assert not_aligned["labels"][0] == ["Team goal", "t4", "Something was unclear and we were working it out"]
    lake = next(m for m in p["views"]["guide"]["misplaced"] if m["name"] == "lake")
    assert lake["here"] == [4, 5, 4, 5] and lake["there"] == [6, 7, 6, 7] and lake["other"] == "Follower's map"


def test_payload_of_a_long_session_is_small():
    session, grid_map = _bench().synthetic_session(100, 100, 1000, seed=3)
    p = player_payload(rp.build_frames(session, grid_map))
    size = len(json.dumps(p, separators=(",", ":")))
    assert p["steps"]["n"] == 1000 and len(p["bases"]["guide"]) == 10_000
    assert size < 400_000, size


def test_positions_from_links_and_the_browser_are_checked():
    assert clean_position({"step": "7", "view": "both", "route": "1"}, 20) == {"step": 7, "view": "both", "route": True}
    assert clean_position({"step": 99, "view": "x"}, 20) == {"step": 19, "view": "guide", "route": False}
    assert clean_position({"step": -3, "view": "follower", "route": True}, 20) == {
        "step": 0,
        "view": "follower",
        "route": True,
    }
    assert clean_position({"step": "seven"}, 20) is None
    assert clean_position("12", 20) is None
    assert clean_position({"step": 4}, 0) == {"step": 0, "view": "guide", "route": False}


HOSTILE = '</script><iframe srcdoc="<script>parent.__pwned=1</script>"></iframe><img src=x onerror="window.__pwned=2">'


class _Tags(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags: list[tuple[str, dict]] = []
        self.data: dict[str, str] = {}
        self._in = None

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        self._in = dict(attrs).get("id")

    def handle_data(self, data):
        if self._in:
            self.data[self._in] = self.data.get(self._in, "") + data


def test_standalone_player_is_self_contained_and_its_data_stays_data(tiny):
    s = tiny.session("s1")
    s.actions[0].content = HOSTILE
    f = rp.build_frames(s, tiny.map_of("s1"))
    data = player_data(player_payload(f), {"step": 2, "view": "both", "route": False}, title=HOSTILE)
    page = standalone_html(data, HOSTILE)
    parsed = _Tags()
    parsed.feed(page)
    scripts = [attrs for tag, attrs in parsed.tags if tag == "script"]
    assert [a.get("type") for a in scripts] == ["application/json", "module"]
    assert not any(tag in ("iframe", "img") for tag, _ in parsed.tags)
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", page)  # nothing fetched from elsewhere
    assert json.loads(parsed.data["replay-data"]) == json.loads(json.dumps(data))
    assert "<title>&lt;/script&gt;" in page


# -- participants -------------------------------------------------------------------------------


def test_teamq_profile_means_per_dimension():
    scores = [4, 2, 3, 1, 0, 4, 2, 3, 4, 1, 2, 3, 3, 0]
    p = teamq_profile(scores)
    dims = dict(p.dimensions)
    assert list(dims)[:3] == ["Task Contribution", "Feedback", "Communication"] and len(dims) == 9
    assert dims["Task Contribution"] == 3.0  # items 1-2: 4, 2
    assert dims["Coordination"] == 3.0  # items 7-9: 2, 3, 4
    assert dims["Conflict Management"] == 2.0  # items 12-14: 3, 3, 0
    assert p.mean == pytest.approx(32 / 14)
    assert p.items[4].answer == "Never" and p.items[0].answer == "Always"
    assert teamq_profile(None) == Undefined("no TeamQ answers in the data")


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


def _player(at: AppTest) -> tuple[str, dict]:
    """The player's key and the data it was given."""
    (element,) = [e for e in at.get("bidi_component") if e.proto.component_name == "groundwork_replay_player"]
    key = element.proto.id.rsplit("-", 1)[-1]
    return key, json.loads(element.proto.json)


def test_a_link_opens_its_session_step_and_view(tmp_path, monkeypatch):
    corpus = load_sample()
    sid = list(corpus.sessions)[4]
    at = _open_replay(tmp_path, monkeypatch, {"session": sid, "step": "7", "view": "both", "route": "1"})
    assert at.title[0].value == "Replay"
    assert at.selectbox(key="replay_session").value == sid
    key, data = _player(at)
    assert key == player_key(sid)
    assert data["session"] == sid and data["start"] == {"step": 7, "view": "both", "route": True}
    assert data["steps"]["n"] == len(corpus.sessions[sid].actions)
    assert dict(at.query_params) == {"session": sid, "step": "7", "view": "both", "route": "1"}


def test_the_header_shows_the_session_and_both_participants(tmp_path, monkeypatch):
    corpus = load_sample()
    sid = next(iter(corpus.sessions))
    s = corpus.sessions[sid]
    at = _open_replay(tmp_path, monkeypatch)
    header = next(m.value for m in at.markdown if "Condition:" in m.value)
    assert f"**{len(s.actions)}** actions" in header and f"Split **{s.split}**" in header
    captions = [c.value for c in at.caption]
    for p in s.participants:
        line = next(c for c in captions if c.startswith(f"**{p.role.capitalize()}**"))
        assert md_text(p.persona.gender) in line and md_text(p.persona.age_group) in line
        assert p.id.replace("-", "\\-") in line  # escaped: data is never Markdown
    profiles = [m.value for m in at.markdown if m.value.startswith("**TeamQ profile**")]
    want = [f"mean {sum(p.persona.teamq) / 14:.2f} of 4" for p in s.participants]
    assert [w in m for w, m in zip(want, profiles)] == [True, True]


def test_a_report_from_the_player_goes_to_the_url_and_a_new_session_starts_at_its_first_action(tmp_path, monkeypatch):
    corpus = load_sample()
    sid, other = list(corpus.sessions)[2], list(corpus.sessions)[0]
    at = _open_replay(tmp_path, monkeypatch, {"session": sid, "step": "3"})
    key, data = _player(at)
    at.session_state[key] = {"position": {"step": 12, "view": "follower", "route": True}}
    at.run()
    assert dict(at.query_params) == {"session": sid, "step": "12", "view": "follower", "route": "1"}
    assert at.session_state["replay_position"] == {"step": 12, "view": "follower", "route": True}
    # A position the browser cannot have sent is ignored.
    at.session_state[key] = {"position": {"step": "<b>", "view": "follower"}}
    at.run()
    assert at.query_params["step"] == "12"
    # Another session starts at its first action and keeps the map view.
    at.selectbox(key="replay_session").set_value(other).run()
    key, data = _player(at)
    assert data["session"] == other and data["start"] == {"step": 0, "view": "follower", "route": True}
    assert at.query_params["session"] == other and at.query_params["step"] == "0"


def test_a_link_to_an_unknown_session_falls_back_with_a_warning(tmp_path, monkeypatch):
    at = _open_replay(tmp_path, monkeypatch, {"session": "nope", "step": "3"})
    assert any("'nope'" in w.value for w in at.warning)
    _, data = _player(at)
    assert data["start"]["step"] == 0


def _broken_sessions_script():
    from components.replay import player, session_frames, session_header
    from corpus.loading.dataset import load_dir
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
            player(corpus, frames)


def test_a_broken_session_shows_an_error_and_the_others_still_play(tmp_path):
    import inspect
    import textwrap

    from helpers import write_tiny

    write_tiny(tmp_path / "ds", n_sessions=3)
    src = textwrap.dedent(inspect.getsource(_broken_sessions_script)).replace("/TMP", str(tmp_path))
    script = tmp_path / "broken.py"
    script.write_text(
        f"import sys\nfrom pathlib import Path\nsys.path.insert(0, {str(ROOT)!r})\nsys.path.insert(0, {str(ROOT / 'tests')!r})\n"
        + src
        + "\n_broken_sessions_script()\n"
    )
    at = AppTest.from_file(str(script), default_timeout=60).run()
    assert not at.exception, [e.value for e in at.exception]
    errors = [e.value for e in at.error]
    assert any("Session 's2'" in e and "map 'gone' is missing" in e for e in errors)
    assert any("Session 's3'" in e and "\\[50, 50\\]" in e and "outside the 10x12 grid" in e for e in errors)
    _, data = _player(at)
    assert data["session"] == "s1" and data["steps"]["n"] == 6


def test_a_session_without_actions_gives_the_map_alone():
    from helpers import tiny_map, tiny_session

    s = tiny_session()
    s.actions = []
    f = rp.build_frames(s, tiny_map())
    p = player_payload(f)
    assert p["steps"]["n"] == 0 and p["steps"]["added"] == [] and p["next"]["message"] == []
    assert len(p["bases"]["guide"]) == 120
    assert f.coverage(0) == Undefined("the session has no actions")
