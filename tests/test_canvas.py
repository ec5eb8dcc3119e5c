"""The Follower's canvas: draw, erase, undo, reset, edited one action at a time and as a whole
history, against a naive full-state replay."""

import numpy as np
import pytest

from corpus.canvas import KEYFRAME_EVERY, Canvas, reconstruct
from corpus.loading.dataset import load_sample


def cells(h, t):
    return {tuple(x) for x in h.cells(t).tolist()}


def test_draw_and_erase():
    h = reconstruct((5, 5), [("draw", [(0, 0), (0, 1)]), ("erase", [(0, 0), (4, 4)]), ("message", None)])
    assert cells(h, 0) == {(0, 0), (0, 1)}
    assert cells(h, 1) == {(0, 1)}
    assert cells(h, 2) == {(0, 1)}
    assert h.counts.tolist() == [2, 1, 1]
    added, removed = h.changed(1)
    assert added.tolist() == [] and removed.tolist() == [[0, 0]]
    assert cells(h, -1) == set()


def test_undo_after_erase_restores_erased_cells():
    h = reconstruct((5, 5), [("draw", [(1, 1), (1, 2), (1, 3)]), ("erase", [(1, 2), (1, 3)]), ("undo", None)])
    assert cells(h, 1) == {(1, 1)}
    assert cells(h, 2) == {(1, 1), (1, 2), (1, 3)}
    assert h.changed(2)[0].tolist() == [[1, 2], [1, 3]]


def test_reset_then_undo_restores_the_canvas():
    steps = [("draw", [(0, 0), (1, 1)]), ("draw", [(2, 2)]), ("reset", None), ("undo", None)]
    h = reconstruct((4, 4), steps)
    assert cells(h, 2) == set()
    assert cells(h, 3) == {(0, 0), (1, 1), (2, 2)}


def test_successive_undos_walk_back_and_stop_at_empty():
    steps = [("draw", [(0, 0)]), ("draw", [(0, 1)]), ("undo", None), ("undo", None), ("undo", None), ("draw", [(3, 3)])]
    h = reconstruct((4, 4), steps)
    assert [len(cells(h, t)) for t in range(6)] == [1, 2, 1, 0, 0, 1]
    assert cells(h, 5) == {(3, 3)}


def test_undo_of_a_draw_over_existing_cells_keeps_them():
    h = reconstruct((3, 3), [("draw", [(0, 0), (0, 1)]), ("draw", [(0, 1), (0, 2)]), ("undo", None)])
    assert cells(h, 2) == {(0, 0), (0, 1)}


def test_cells_outside_the_grid_are_ignored():
    h = reconstruct((2, 2), [("draw", [(0, 0), (5, 5), (-1, 0)])])
    assert cells(h, 0) == {(0, 0)}


def naive(shape, steps):
    """Full-state replay with a stack of whole canvases: obviously right, slow."""
    cur = np.zeros(shape, bool)
    stack, out = [], []
    for kind, cs in steps:
        if kind in ("draw", "erase", "reset"):
            stack.append(cur.copy())
            if kind == "reset":
                cur[:] = False
            else:
                for r, c in cs:
                    cur[r, c] = kind == "draw"
        elif kind == "undo" and stack:
            cur = stack.pop()
        out.append(cur.copy())
    return out


@pytest.mark.parametrize("seed", range(5))
def test_matches_naive_replay_on_random_sessions(seed):
    rng = np.random.default_rng(seed)
    shape = (8, 9)
    kinds = ["draw", "draw", "draw", "erase", "undo", "reset", "message"]
    steps = []
    for _ in range(3 * KEYFRAME_EVERY + 7):
        k = kinds[rng.integers(len(kinds))]
        cs = [tuple(x) for x in rng.integers(0, 8, size=(rng.integers(1, 6), 2))] if k in ("draw", "erase") else None
        steps.append((k, cs))
    h = reconstruct(shape, steps)
    ref = naive(shape, steps)
    for t in range(len(steps)):
        assert np.array_equal(h.mask(t), ref[t]), f"step {t} ({steps[t][0]})"
    assert np.array_equal(h.final, ref[-1])


def test_the_incremental_canvas_reports_each_change_in_flat_cells():
    c = Canvas((3, 4))
    assert c.draw([(0, 0), (0, 1), (9, 9)]) == ({0, 1}, set())
    assert c.draw([(0, 1), (2, 3)]) == ({11}, set())  # (0, 1) was filled already
    assert (2, 3) in c and (1, 1) not in c and (9, 9) not in c and (-1, 3) not in c
    assert c.erase([(0, 0), (1, 1)]) == (set(), {0})
    assert c.cells() == {(0, 1), (2, 3)} and len(c) == 2 and c.flat().tolist() == [1, 11]
    assert c.reset() == (set(), {1, 11}) and len(c) == 0
    assert c.apply("message", [(1, 1)]) == (set(), set())
    assert c.undo() == ({1, 11}, set())  # the reset
    assert c.undo() == ({0}, set())  # the erase
    assert c.undo() == (set(), {11})  # the second draw turned on (2, 3) only
    assert c.undo() == (set(), {0, 1})
    assert c.undo() == (set(), set()) and len(c) == 0  # nothing left to undo


def test_sample_corpus_histories_match_the_naive_replay():
    corpus = load_sample()
    for s in corpus.sessions.values():
        shape = tuple(corpus.maps[s.map_id].grid_size)
        steps = [(a.type, [tuple(x) for x in a.content] if isinstance(a.content, list) else None) for a in s.actions]
        h = corpus.history(s.id)
        ref = naive(shape, steps)
        assert len(h) == len(ref)
        for t in range(len(steps)):
            assert np.array_equal(h.mask(t), ref[t]), (s.id, t)
        assert h.counts.tolist() == [int(m.sum()) for m in ref]


def test_cells_of_any_number_type_fill_the_same_cells():
    """Cells as the readers give them (lists of ints), as tuples, floats or numpy integers, with
    some outside the grid: the same filled cells, as Python ints."""
    given = [[0, 0], [2, 3], [4, 4], [-1, 2], [2, 5], [5, 0], [2, 3]]
    want = {(0, 0), (2, 3), (4, 4)}
    for cells in (
        given,
        [tuple(c) for c in given],
        [[float(r), float(c)] for r, c in given],
        [[np.int64(r), np.int64(c)] for r, c in given],
        [[True, 0], [0, 0]],
    ):
        canvas = Canvas((5, 5))
        canvas.draw(cells)
        assert canvas.cells() == (want if len(cells) == len(given) else {(1, 0), (0, 0)})
        assert all(type(i) is int for i in canvas._filled)
