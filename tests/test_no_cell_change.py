"""Actions with no cell change (``no_cell_change``) and the platform's ``route_pixel_ratio``, as
every reader takes them: the model, the fast read of a session's actions, the tables, the canvas
replay, the writer and the replay's data.

A stroke whose ink image is missing or that changed no grid cell, and the undo of one, are kept
for their annotations: they carry no cells and change nothing on the canvas (undo passes them by)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from helpers import mm, tiny_map, tiny_session

from analysis import replay as rp
from analysis.replay_payload import player_payload
from corpus.canvas import session_history
from corpus.loading.action_rows import ActionColumns, columns_at_once
from corpus.loading.dataset import load_dir, validate
from corpus.loading.reading import parse_jsonl
from corpus.loading.report import Report
from corpus.loading.write import write_dataset
from corpus.model import Action, DatasetInfo, Session

ROUTE_CELLS = 6  # tiny_map's route


def session() -> Session:
    """A follower's strokes among which some have no cell change, each with the platform's ratio."""
    f = dict(role="follower")
    actions = [
        Action(index=0, timestamp=0.0, role="guide", type="message", content="start top left"),
        Action(index=1, timestamp=2.0, type="draw", content=[(0, 0), (0, 1), (0, 2)], route_pixel_ratio=0.01, **f),
        Action(
            index=2,
            timestamp=3.0,
            type="draw",
            no_cell_change="changed_no_cell",
            route_pixel_ratio=0.011,
            mental_model=mm(),
            **f,
        ),
        Action(index=3, timestamp=4.0, type="draw", content=[(1, 3), (2, 3)], route_pixel_ratio=0.02, **f),
        Action(
            index=4,
            timestamp=5.0,
            type="draw",
            no_cell_change="ink_missing",
            route_pixel_ratio=0.03,
            mental_model=mm(False),
            **f,
        ),
        # Undo passes the strokes with no cell change by: it reverts action 3.
        Action(index=5, timestamp=6.0, type="undo", route_pixel_ratio=0.01, **f),
        Action(index=6, timestamp=7.0, type="undo", no_cell_change="ink_missing", mental_model=mm(), **f),
        Action(index=7, timestamp=8.0, type="erase", no_cell_change="changed_no_cell", route_pixel_ratio=0.01, **f),
        Action(index=8, timestamp=9.0, type="erase", content=[(0, 2)], route_pixel_ratio=0.005, **f),
    ]
    return tiny_session().model_copy(update={"id": "flagged", "actions": actions})


def test_an_action_with_no_cell_change_changes_nothing_and_undo_passes_it_by():
    h = session_history(session(), (10, 12))
    drawn = [{tuple(c) for c in h.cells(t).tolist()} for t in range(len(h))]
    top = {(0, 0), (0, 1), (0, 2)}
    assert drawn[1] == drawn[2] == top
    assert drawn[3] == drawn[4] == top | {(1, 3), (2, 3)}
    assert drawn[5] == drawn[6] == drawn[7] == top
    assert drawn[8] == {(0, 0), (0, 1)}


def test_the_model_takes_it_only_on_a_stroke_or_an_undo_without_content():
    def problems(**fields) -> list[tuple[str, str]]:
        report = Report()
        line = json.dumps({"index": 0, "timestamp": 0.0, "role": "follower", **fields})
        parse_jsonl(Action, line, report, "actions.jsonl")
        assert columns_at_once(line, (10, 12)) is None  # (the fast read leaves it to the models)
        return [(i.field, i.message) for i in report.errors]

    assert problems(type="message", content="hi", no_cell_change="changed_no_cell") == [
        ("no_cell_change", "a message action cannot have it (only a draw, erase or undo)")
    ]
    assert problems(type="reset", no_cell_change="ink_missing") == [
        ("no_cell_change", "a reset action cannot have it (only a draw, erase or undo)")
    ]
    assert problems(type="draw", content=[[0, 0]], no_cell_change="ink_missing") == [
        ("content", "a draw action with no cell change (no_cell_change) takes no content")
    ]
    ((field, message),) = problems(type="erase", no_cell_change="lost")
    assert field == "no_cell_change" and "'ink_missing' or 'changed_no_cell'" in message
    assert problems(type="draw") == [
        (
            "content",
            "a draw action needs a non-empty list of [row, col] cells (or no_cell_change, saying why it has none)",
        )
    ]
    ((field, message),) = problems(type="draw", content=[[0, 0]], route_pixel_ratio=1.5)
    assert field == "route_pixel_ratio" and "less than or equal to 1" in message
    assert problems(type="message", content="hi", route_pixel_ratio=0.1) == [
        ("route_pixel_ratio", "a message does not change the drawing (only a drawing action has it)")
    ]


def _texts(column: pd.Series) -> list[str | None]:
    """A column of texts as a list, None where it has none (a text column reads a missing one as NaN)."""
    return [None if pd.isna(v) else v for v in column]


@pytest.fixture
def written(tmp_path):
    info = DatasetInfo(name="flagged", description="hand-made test data", synthetic=True)
    return write_dataset(tmp_path / "ds", info, [tiny_map()], [session(), tiny_session("plain")])


def test_the_writer_and_the_fast_read_keep_both_fields(written):
    text = (written / "sessions" / "flagged" / "actions.jsonl").read_text(encoding="utf-8")
    records = [json.loads(line) for line in text.splitlines()]
    assert records[2] == {
        "index": 2,
        "timestamp": 3.0,
        "role": "follower",
        "type": "draw",
        "mental_model": records[2]["mental_model"],
        "no_cell_change": "changed_no_cell",
        "route_pixel_ratio": 0.011,
    }
    assert "no_cell_change" not in records[1] and "route_pixel_ratio" not in records[0]
    fast = columns_at_once(text, (10, 12))
    assert fast is not None
    models = [a for _, a in parse_jsonl(Action, text, Report(), "actions.jsonl")]
    slow = ActionColumns.of(models)
    assert fast.no_cell_change == slow.no_cell_change == [a.no_cell_change for a in session().actions]
    assert fast.route_pixel_ratio == slow.route_pixel_ratio == [a.route_pixel_ratio for a in session().actions]
    assert fast.type == slow.type and fast.team_goal == slow.team_goal
    plain = (written / "sessions" / "plain" / "actions.jsonl").read_text(encoding="utf-8")
    columns = columns_at_once(plain, (10, 12))
    assert columns is not None and columns.no_cell_change is None and columns.route_pixel_ratio is None


@pytest.mark.parametrize("keep_actions", [0, None], ids=["read fast", "read as models"])
def test_the_tables_count_them_as_the_actions_they_are(written, keep_actions):
    report = validate(written)
    assert report.ok and not report.warnings, report.format()
    corpus = load_dir(written, keep_actions=keep_actions)
    actions = corpus.actions_df.set_index(["session_id", "index"])
    flagged = actions.loc["flagged"]
    assert _texts(flagged["no_cell_change"]) == [a.no_cell_change for a in session().actions]
    np.testing.assert_array_equal(
        flagged["route_pixel_ratio"].to_numpy(),
        [np.nan if a.route_pixel_ratio is None else a.route_pixel_ratio for a in session().actions],
    )
    assert flagged["n_cells"].tolist() == [0, 3, 0, 2, 0, 0, 0, 0, 1]
    assert flagged["aligned"].tolist()[2] is True and flagged["team_goal"].tolist()[4] == "t4"
    assert actions.loc["plain", "no_cell_change"].isna().all()
    assert np.isnan(actions.loc["plain", "route_pixel_ratio"].to_numpy()).all()
    sessions = corpus.sessions_df.set_index("session_id")
    assert sessions.loc["flagged", ["n_draw", "n_erase", "n_undo"]].tolist() == [4, 2, 2]
    assert sessions.loc["flagged", "n_route_pixel_ratio"] == 7 and sessions.loc["plain", "n_route_pixel_ratio"] == 0
    coverage = corpus.route_coverage[: len(session().actions)] * ROUTE_CELLS
    np.testing.assert_allclose(coverage, [0, 3, 3, 5, 5, 3, 3, 3, 2])


def test_replay_flags_them_with_their_reason():
    frames = rp.build_frames(session(), tiny_map())
    texts = [r["text"] for r in frames.transcript]
    assert texts[2] == "brush stroke with no cell change (changed no grid cell)"
    assert texts[4] == "brush stroke with no cell change (ink image missing: the cells it changed are not known)"
    assert texts[6] == "undid a stroke with no cell change (ink image missing: the cells it changed are not known)"
    assert texts[7] == "eraser stroke with no cell change (changed no grid cell)"
    assert texts[3] == "drew 2 cells"
    assert _texts(frames.timeline["no_cell_change"]) == [a.no_cell_change for a in session().actions]
    steps = player_payload(frames)["steps"]
    assert steps["no_change"] == [r["no_cell_change"] for r in frames.transcript]
    assert steps["no_change"][2] == "changed no grid cell" and steps["no_change"][3] is None
    assert steps["added"][2] == [] and steps["removed"][5] == [15, 27]  # (the undo reverts action 3)
