"""The corpus's tables are made as the sessions are read, and a loaded corpus keeps a bounded number
of whole sessions (corpus.loading.tables, corpus.loading.session_store): the tables equal the ones made from the
sessions row by row (the way they were made before, written out here as the reference), every
session read again equals the one read on load, and a session whose files changed is refused."""

from __future__ import annotations

import json
import shutil
import zipfile

import numpy as np
import pandas as pd
import pytest

from analysis.progress import progress_table
from corpus import schema
from corpus.canvas import replay, session_history
from corpus.generate import generate
from corpus.loading import tables
from corpus.loading.dataset import Corpus, load, load_dir, load_sample
from corpus.loading.session_store import SessionStore
from corpus.loading.tables import tables_of
from corpus.loading.validate import DatasetError
from corpus.metrics import coverage_curve, route_mask, score


def _reference_actions(corpus: Corpus) -> pd.DataFrame:
    """The action table row by row, from the sessions in memory."""
    rows = []
    for s in corpus.sessions.values():
        n = len(s.actions)
        for a in s.actions:
            mm = a.mental_model
            rows.append(
                {
                    "session_id": s.id,
                    "condition": s.condition,
                    "split": s.split,
                    "index": a.index,
                    "timestamp": a.timestamp,
                    "role": a.role,
                    "type": a.type,
                    "n_cells": len(a.cells),
                    "text": a.text,
                    "team_goal": mm.team_goal.code if mm else None,
                    "partner_intent": mm.partner_intent.code if mm else None,
                    "self_reasoning": mm.self_reasoning.code if mm else None,
                    "aligned": mm.aligned if mm else None,
                    "misalignment_reasons": ",".join(r.code for r in mm.misalignment_reasons) if mm else "",
                    "rationale": mm.rationale if mm else "",
                    "progress": a.index / (n - 1) if n > 1 else 1.0,
                    "no_cell_change": a.no_cell_change,
                    "route_pixel_ratio": np.nan if a.route_pixel_ratio is None else a.route_pixel_ratio,
                }
            )
    df = pd.DataFrame(rows)
    for c in ("condition", "split", "role", "type"):
        df[c] = df[c].astype("category")
    return df


def _reference_sessions(corpus: Corpus) -> pd.DataFrame:
    """The session table from each session's whole canvas history."""
    rows = []
    for s in corpus.sessions.values():
        m = corpus.maps[s.map_id]
        h = session_history(s, m.grid_size)
        sc = score(h.mask(len(h) - 1), route_mask(m.route, tuple(m.grid_size)))
        row = {
            "session_id": s.id,
            "condition": s.condition,
            "split": s.split,
            "map_id": s.map_id,
            "duration_min": s.duration_s / 60.0,
            "n_actions": len(s.actions),
        }
        for t in schema.ACTION_TYPES:
            row[f"n_{t}"] = sum(a.type == t for a in s.actions)
        row.update(
            final_accuracy=sc.accuracy,
            reported_accuracy=s.final_accuracy,
            route_coverage=sc.coverage,
            distance_weighted=sc.distance_weighted,
            n_checkpoints=len(s.checkpoints),
            route_deviation=s.route_deviation,
            n_route_pixel_ratio=sum(a.route_pixel_ratio is not None for a in s.actions),
        )
        rows.append(row)
    return pd.DataFrame(rows)


def _reference_coverage(corpus: Corpus) -> np.ndarray:
    out = []
    for s in corpus.sessions.values():
        m = corpus.maps[s.map_id]
        h = session_history(s, m.grid_size)
        mask = route_mask(m.route, tuple(m.grid_size))
        out.append(coverage_curve(h, mask).astype(float) if m.route else np.full(len(s.actions), np.nan))
    return np.concatenate(out)


@pytest.fixture(scope="module")
def generated(tmp_path_factory) -> str:
    """60 generated sessions (about 6,000 actions, repairs and resets among them)."""
    return str(generate(seed=5, out=tmp_path_factory.mktemp("gen") / "ds", n_sessions=60))


def _check_tables(corpus: Corpus) -> None:
    pd.testing.assert_frame_equal(corpus.actions_df, _reference_actions(corpus))
    pd.testing.assert_frame_equal(corpus.sessions_df, _reference_sessions(corpus))
    np.testing.assert_array_equal(corpus.route_coverage, _reference_coverage(corpus))
    coverage = progress_table(corpus)["progress_coverage"].to_numpy()
    np.testing.assert_array_equal(coverage, _reference_coverage(corpus))


def test_the_sample_tables_equal_the_row_by_row_ones():
    corpus = load_sample()
    assert len(corpus.actions_df) > 2500 and corpus.sessions_df["n_reset"].sum() > 0
    _check_tables(corpus)


def test_a_generated_corpus_read_with_few_sessions_kept(generated, monkeypatch):
    monkeypatch.setattr(tables, "CHUNK", 700)  # (the text columns made in pieces, as at 50,000 rows)
    corpus = load_dir(generated, keep_actions=1_000)
    assert isinstance(corpus.sessions, SessionStore)
    assert 0 < corpus.sessions.kept < 20  # (about ten sessions of 100 actions)
    eager = load_dir(generated, keep_actions=None)
    assert eager.sessions.kept == 60
    _check_tables(corpus)  # (reads every session again, one after another)
    assert corpus.sessions.kept < 20
    for sid in list(eager.sessions)[::7]:
        assert corpus.session(sid).model_dump() == eager.session(sid).model_dump()
        assert corpus.meta(sid).model_dump() == eager.session(sid).meta.model_dump()
        assert corpus.n_actions(sid) == len(eager.session(sid).actions)
    assert corpus.splits == eager.splits and corpus.design == eager.design


@pytest.mark.parametrize("stripped", ["every session", "every other session"])
def test_actions_without_a_mental_model_read_as_the_row_by_row_tables(generated, tmp_path, monkeypatch, stripped):
    """Sessions recorded without mental models (an import of another corpus): their codes are None,
    a column of them where no session has one, whichever pieces the columns were made in."""
    monkeypatch.setattr(tables, "CHUNK", 700)
    root = tmp_path / "ds"
    shutil.copytree(generated, root)
    for k, path in enumerate(sorted(root.glob("sessions/*/actions.jsonl"))):
        if stripped == "every session" or k % 2:
            records = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
            path.write_text("".join(json.dumps({**r, "mental_model": None}) + "\n" for r in records))
    corpus = load_dir(root, keep_actions=None)
    _check_tables(corpus)
    codes = corpus.actions_df["team_goal"]
    if stripped == "every session":
        assert codes.dtype == object and codes.map(lambda v: v is None).all()
    else:
        assert 0 < codes.isna().sum() < len(codes) and str(codes.dtype) == "str"


def test_a_corpus_built_in_code_makes_the_same_tables(generated):
    loaded = load_dir(generated, keep_actions=None)
    assert tables_of({}, loaded.maps).actions.columns.tolist() == list(tables.ACTION_COLUMNS)
    built = Corpus(
        root=loaded.root,
        info=loaded.info,
        maps=loaded.maps,
        sessions=dict(loaded.sessions.items()),
        labels=loaded.labels,
        predictions={},
    )
    pd.testing.assert_frame_equal(built.actions_df, loaded.actions_df)
    pd.testing.assert_frame_equal(built.sessions_df, loaded.sessions_df)
    np.testing.assert_array_equal(built.route_coverage, loaded.route_coverage)
    assert built.tables is None and tables_of(built.sessions, built.maps).actions.shape == loaded.actions_df.shape


def test_replay_gives_the_history_s_final_canvas_and_coverage(generated):
    corpus = load_dir(generated, keep_actions=None)
    for sid in list(corpus.sessions)[:20]:
        s = corpus.session(sid)
        m = corpus.maps[s.map_id]
        mask = route_mask(m.route, tuple(m.grid_size))
        steps = [(a.type, a.content if isinstance(a.content, list) else None) for a in s.actions]
        h = session_history(s, m.grid_size)
        played = replay(tuple(m.grid_size), steps, frozenset(np.flatnonzero(mask).tolist()))
        np.testing.assert_array_equal(played.final, np.flatnonzero(h.final))
        np.testing.assert_array_equal(np.cumsum(played.route_delta) / max(mask.sum(), 1), coverage_curve(h, mask))
        # (cells known to be inside the grid, as the fast read checks them, are taken as they are: the same)
        checked = replay(tuple(m.grid_size), steps, frozenset(np.flatnonzero(mask).tolist()), in_grid=True)
        np.testing.assert_array_equal(checked.final, played.final)
        np.testing.assert_array_equal(checked.route_delta, played.route_delta)
        assert replay(tuple(m.grid_size), steps).route_delta is None


def test_a_session_changed_after_load_is_refused_with_its_file(generated, tmp_path):
    ds = tmp_path / "ds"
    shutil.copytree(generated, ds)
    corpus = load_dir(ds, keep_actions=0)
    assert corpus.sessions.kept == 0
    sid = list(corpus.sessions)[3]
    assert len(corpus.session(sid).actions) == corpus.n_actions(sid)
    path = ds / "sessions" / sid / "actions.jsonl"
    path.write_text(path.read_text(encoding="utf-8").replace('"role":"guide"', '"role":"referee"', 1), encoding="utf-8")
    other = list(corpus.sessions)[4]
    (ds / "sessions" / other / "actions.jsonl").unlink()
    with pytest.raises(DatasetError) as err:
        corpus.session(other)
    assert f"sessions/{other}/actions.jsonl" in str(err.value)
    with pytest.raises(DatasetError) as err:
        corpus.session(sid)
    assert f"sessions/{sid}/actions.jsonl" in str(err.value) and "role" in str(err.value)
    with pytest.raises(KeyError, match="no session 'nope'"):
        corpus.meta("nope")


def test_a_zip_keeps_every_session(generated, tmp_path):
    archive = tmp_path / "ds.zip"
    with zipfile.ZipFile(archive, "w") as z:
        for path in sorted(p for p in __import__("pathlib").Path(generated).rglob("*") if p.is_file()):
            z.write(path, path.relative_to(generated))
    corpus = load(archive)
    assert corpus.sessions.kept == 60
    sid = list(corpus.sessions)[-1]
    assert len(corpus.session(sid).actions) == corpus.n_actions(sid) > 0


def test_outlines_are_made_from_the_table_and_check_uploads_as_the_sessions_do(generated):
    from corpus.predictions.sources import read_upload

    corpus = load_dir(generated, keep_actions=1_000)
    eager = load_dir(generated, keep_actions=None)
    kept = corpus.sessions.kept
    assert corpus.outlines.keys() == eager.sessions.keys()
    for sid, s in eager.sessions.items():
        o = corpus.outlines[sid]
        assert (o.id, o.map_id) == (s.id, s.map_id)
        assert [(a.index, a.role) for a in o.actions] == [(a.index, a.role) for a in s.actions]
    assert corpus.sessions.kept == kept  # (no session was read to make them)
    # A predictions file with good and bad lines is read the same against either.
    run = next(iter(eager.predictions))
    lines = (eager.root / "predictions" / run / "next_action.jsonl").read_text().splitlines()
    lines[3] = lines[3].replace('"action_index":', '"action_index":9999,"x":', 1)
    lines[5] = lines[5].replace('"role":"guide"', '"role":"follower"').replace('"role":"follower"', '"role":"guide"')
    data = ("\n".join(lines) + "\n").encode()
    by_outline = read_upload("next_action.jsonl", data, corpus.outlines, corpus.maps)
    by_session = read_upload("next_action.jsonl", data, eager.sessions, eager.maps)
    assert [i.as_dict() for r in by_outline for i in r.report.issues] == [
        i.as_dict() for r in by_session for i in r.report.issues
    ]
    assert by_outline[0].report.issues  # (the bad lines were reported)
    good = [line for k, line in enumerate(lines) if k not in (3, 5)]
    data = ("\n".join(good) + "\n").encode()
    (a,) = read_upload("next_action.jsonl", data, corpus.outlines, corpus.maps)
    (b,) = read_upload("next_action.jsonl", data, eager.sessions, eager.maps)
    assert a.ok and b.ok
    pd.testing.assert_frame_equal(a.table("next_action"), b.table("next_action"))
