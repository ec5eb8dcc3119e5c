"""One simulated session: the story of the Guide and the Follower over the route's segments.

Per segment the Guide instructs, the Follower may ask or acknowledge, then draws the segment (with
brush jitter, and sometimes a real mistake); a mistake is noticed (sooner when the Guide sees the
canvas) and repaired by erase or undo, or it stays. Every action gets its latent state (for the
mental model) and its true grounding act (for the simulated coders). The Follower's edits go
through a :class:`corpus.canvas.Canvas`, so an erase removes only what is on it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, cast

import numpy as np

from corpus.canvas import Canvas
from corpus.generate.draws import choice
from corpus.generate.phrases import (
    ACK_F,
    ACK_G,
    CANCEL,
    CONTINUE,
    END_F,
    END_G,
    FIX_F,
    INSTRUCT,
    NOTICE_NV,
    REPAIR_G,
    REQ_ACK,
    REQ_REPAIR,
    SMALLTALK,
    START_F,
    START_G,
)
from corpus.model import GridMap, LandmarkSummary


@dataclass
class Step:
    """One simulated action with what the story knows about it."""

    role: str
    type: str
    content: Any
    state: str
    act: str  # the grounding act this action is (the simulated coders' truth)
    lm: str


def direction(seg: list) -> str:
    """The way a segment goes, in the words a Guide would use."""
    (r0, c0), (r1, c1) = seg[0], seg[-1]
    dr, dc = r1 - r0, c1 - c0
    if abs(dc) >= 2 * abs(dr):
        return "right" if dc > 0 else "left"
    if abs(dr) >= 2 * abs(dc):
        return "down" if dr > 0 else "up"
    return ("down" if dr > 0 else "up") + (" and right" if dc > 0 else " and left")


def _jitter(rng, seg: list, q: float, shape) -> list:
    """The brush is wider than a cell and hands shake: some cells land next to the route."""
    rows, cols = shape
    out = []
    for i, (r, c) in enumerate(seg):
        nxt = seg[min(i + 1, len(seg) - 1)]
        prv = seg[max(i - 1, 0)]
        dr, dc = nxt[0] - prv[0], nxt[1] - prv[1]
        # perpendicular to the local direction
        perp = (-(1 if dc > 0 else -1 if dc < 0 else 0), (1 if dr > 0 else -1 if dr < 0 else 0))
        if perp == (0, 0):
            perp = (1, 0)
        u = rng.random()
        sgn = 1 if rng.random() < 0.5 else -1
        off = (r + sgn * perp[0], c + sgn * perp[1])
        if u < q * 0.55:  # drawn beside the route instead of on it
            cand = [off]
        elif u < q:  # drawn on it and beside it (thick stroke)
            cand = [(r, c), off]
        else:
            cand = [(r, c)]
        for cell in cand:
            if 0 <= cell[0] < rows and 0 <= cell[1] < cols and cell not in out:
                out.append(cell)
    return out or [seg[0]]


def shifted(seg: list, dr: int, dc: int, shape) -> list:
    rows, cols = shape
    out = []
    for r, c in seg:
        cell = (min(max(r + dr, 0), rows - 1), min(max(c + dc, 0), cols - 1))
        if cell not in out:
            out.append(cell)
    return out


def _centroid(gm: GridMap, lm: str) -> tuple[float, float]:
    """The centroid of a landmark of the map (validation fills in every landmark's summary)."""
    return cast(LandmarkSummary, gm.landmarks[lm].summary).centroid


def nearest_landmark(gm: GridMap, cells: list) -> str:
    r = np.mean([c[0] for c in cells])
    c = np.mean([c[1] for c in cells])
    return min(
        gm.landmarks,
        key=lambda n: (_centroid(gm, n)[0] - r) ** 2 + (_centroid(gm, n)[1] - c) ** 2,
    )


def _relation(gm: GridMap, seg: list, lm: str) -> tuple[str, str]:
    """('above'|'below'|'left of'|'right of', side word) of the segment relative to a landmark."""
    cr, cc = _centroid(gm, lm)
    r = np.mean([c[0] for c in seg])
    c = np.mean([c[1] for c in seg])
    if abs(r - cr) >= abs(c - cc):
        return ("above", "top") if r < cr else ("below", "bottom")
    return ("left of", "left") if c < cc else ("right of", "right")


_OPPOSITE = {"above": "below it", "below": "above it", "left of": "right of it", "right of": "left of it"}

# How the two conditions differ (the paper's Table 1, Fig. 3 and task success). Without the live
# view of the canvas the pair talks more (a larger share of messages, more of it small talk and
# waiting) and the Follower draws the route in fewer, longer and steadier strokes (less brush
# jitter: final accuracy ends a little higher, 0.67 against 0.65 in the paper); drawing-related
# actions serve the Follower's own exploration (coded "other"), and slips are erased rather than
# undone. With the view the Follower draws in smaller steps the Guide can follow, each step a
# continuation of the shared plan; the Guide confirms what he sees, and both acknowledge more.
# Each parameter: (not visible, visible).
_STYLE_PAIRS: dict[str, tuple[Any, Any]] = {
    "msg_frac": (0.71, 0.53),
    "draw_share": ((0.40, 0.52), (0.58, 0.72)),
    "split_stroke": (0.2, 0.6),
    "stroke_ack": (0.0, 0.25),
    "stroke_continue": (0.1, 0.75),
    "follower_ack": (0.4, 0.75),
    "guide_ack": (0.0, 0.8),
    "filler": ((0.6, 0.3), (0.35, 0.15)),
    "undo_fix": (0.35, 0.6),
    "p_err": (0.38, 0.3),
    "p_notice": (0.5, 0.85),
    "jitter": (0.44, 0.54),
}
STYLE: dict[str, dict[str, Any]] = {
    condition: {name: pair[i] for name, pair in _STYLE_PAIRS.items()}
    for i, condition in enumerate(("not_visible", "visible"))
}


class _Story:
    """One session's story while it is told: the actions so far and the Follower's canvas."""

    def __init__(self, rng: np.random.Generator, gm: GridMap, visible: bool) -> None:
        self.rng, self.gm, self.visible = rng, gm, visible
        self.style = STYLE["visible" if visible else "not_visible"]
        self.shape = cast(tuple[int, int], tuple(gm.grid_size))
        self.route = list(gm.route)
        self.on_route = set(self.route)
        self.canvas = Canvas(self.shape)
        self.steps: list[Step] = []
        self.fix_act = "repair" if visible else "other"  # a repair is coded as such only when seen

    def say(self, role: str, text: str, state: str, act: str, lm: str) -> None:
        self.steps.append(Step(role, "message", text, state, act, lm))

    def edit(self, kind: str, cells: list | None, state: str, act: str, lm: str) -> None:
        """The Follower edits the canvas (draw, erase, reset, undo)."""
        self.canvas.apply(kind, cells)
        self.steps.append(Step("follower", kind, cells, state, act, lm))

    def opening(self, first_segment: list) -> None:
        rng = self.rng
        lm = nearest_landmark(self.gm, first_segment)
        self.say("guide", choice(rng, START_G).format(row=self.route[0][0], lm=lm), "start", "initiate", lm)
        if rng.random() < 0.8:
            self.say("follower", choice(rng, START_F), "start", "acknowledge", lm)

    def instruction(self, kw: dict, lm: str, budget: float, near_misplaced: bool) -> float:
        """The Guide instructs (initiate), may add more (continue); the Follower asks for
        clarification or acknowledges. Returns the message budget left for this segment."""
        rng, say = self.rng, self.say
        say("guide", choice(rng, INSTRUCT).format(**kw), "instruct", "initiate", lm)
        budget -= 1
        while budget > 2.5 and rng.random() < 0.45:
            say("guide", choice(rng, CONTINUE).format(**kw), "instruct", "continue", lm)
            budget -= 1
        if budget > 1 and rng.random() < (0.5 if near_misplaced else 0.18):
            say("follower", choice(rng, REQ_REPAIR).format(**kw), "ask", "request_repair", lm)
            say("guide", choice(rng, REPAIR_G).format(**kw), "answer", "repair", lm)
            budget -= 2
            if budget > 0.5 and rng.random() < 0.15:
                say("follower", choice(rng, CANCEL), "cancel", "cancel", lm)
                budget -= 1
        if budget > 0.5 and rng.random() < self.style["follower_ack"]:
            say("follower", choice(rng, ACK_F), "ack", "acknowledge", lm)
            budget -= 1
        return budget

    def reset_and_redraw(self, drawn_upto: int, q: float, lm: str) -> None:
        """The drawing got messy: start over and redraw what was there."""
        rng = self.rng
        self.say(
            "follower",
            choice(
                rng,
                ["ugh this is messy, starting over", "let me reset, it's all wrong", "I'm going to clear it and redo"],
            ),
            "repair",
            "other",
            lm,
        )
        self.edit("reset", None, "repair", "cancel", lm)
        redo = _jitter(rng, self.route[:drawn_upto], q * 0.6, self.shape)
        if redo:
            self.edit("draw", redo, "draw", "continue" if self.visible else "other", lm)

    def mistake(self, seg: list, q: float, p_notice: float, kw: dict, lm: str) -> None:
        """A real mistake (the segment drawn shifted); noticed or not, repaired or not."""
        rng, say, visible = self.rng, self.say, self.visible
        dr, dc = int(rng.choice([-3, -2, 2, 3])), int(rng.choice([-2, -1, 0, 1, 2]))
        bad = _jitter(rng, shifted(seg, dr, dc, self.shape), q, self.shape)
        self.edit("draw", bad, "draw" if visible else "explore", "continue" if visible else "other", lm)
        if not rng.random() < p_notice:
            return  # unnoticed: the wrong stroke stays; the Follower goes on from where the route is
        if visible:
            say("guide", choice(rng, REPAIR_G).format(**kw), "repair", "repair", lm)
        else:
            if rng.random() < 0.5:
                say("follower", choice(rng, REQ_ACK).format(**kw), "ask", "request_ack", lm)
            else:
                say("guide", choice(rng, NOTICE_NV), "ask", "request_ack", lm)
                where = (
                    f"I'm {kw['pos']} the {lm}"
                    if rng.random() < 0.5
                    else f"my line ends near the {choice(rng, sorted(self.gm.landmarks))}"
                )
                say("follower", where, "instruct", "continue", lm)
            say("guide", choice(rng, REPAIR_G).format(**kw), "repair", "repair", lm)
        if rng.random() < 0.4:
            say("follower", choice(rng, FIX_F), "ack", "acknowledge", lm)
        if rng.random() < self.style["undo_fix"]:
            self.edit("undo", None, "repair", self.fix_act, lm)
            if rng.random() < 0.15:  # an undo too many, drawn again
                self.edit("undo", None, "repair", self.fix_act, lm)
            return
        wrong = [c for c in bad if c in self.canvas and c not in self.on_route]
        # Erase in one or two passes, sometimes missing a few cells.
        keep = [c for c in wrong if rng.random() < 0.88]
        if not keep:
            self.edit("undo", None, "repair", "repair", lm)
            return
        parts = [keep] if len(keep) < 6 or rng.random() < 0.5 else [keep[: len(keep) // 2], keep[len(keep) // 2 :]]
        for part in parts:
            self.edit("erase", part, "repair", self.fix_act, lm)

    def stroke(self, seg: list, q: float, p_slip: float, lm: str) -> None:
        """The correct stroke, in one or two pieces, each perhaps with a small slip fixed."""
        rng = self.rng
        split = len(seg) >= 6 and rng.random() < self.style["split_stroke"]
        pieces = [seg[: len(seg) // 2], seg[len(seg) // 2 :]] if split else [seg]
        for piece in pieces:
            cells = _jitter(rng, piece, q, self.shape)
            u = rng.random()
            act = (
                "acknowledge"
                if u < self.style["stroke_ack"]
                else "continue"
                if u < self.style["stroke_continue"]
                else "other"
            )
            self.edit("draw", cells, "draw", act, lm)
            if rng.random() < p_slip:
                slip = [c for c in cells if c not in self.on_route][: int(rng.integers(1, 6))]
                if slip and rng.random() < 0.7:
                    self.edit("erase", slip, "repair", self.fix_act, lm)
                elif slip:
                    self.edit("undo", None, "repair", self.fix_act, lm)
                    self.edit("draw", _jitter(rng, piece, q * 0.5, self.shape), "draw", self.fix_act, lm)

    def after_stroke(self, kw: dict, lm: str, budget: float) -> None:
        """Confirmation and acknowledgement, then small talk while the budget lasts."""
        rng, say = self.rng, self.say
        if budget > 0.5:
            if rng.random() < self.style["guide_ack"]:
                say("guide", choice(rng, ACK_G), "ack", "acknowledge", lm)
            elif rng.random() < 0.5:
                say("follower", choice(rng, REQ_ACK).format(**kw), "ask", "request_ack", lm)
                say("guide", choice(rng, ACK_G), "ack", "acknowledge", lm)
                budget -= 1
            budget -= 1
        chat, wait = self.style["filler"]
        while budget > 0.5:
            u = rng.random()
            if u < chat:
                say(choice(rng, ["guide", "follower"]), choice(rng, SMALLTALK), "chat", "other", lm)
            elif u < chat + wait:
                say("follower", "ok, waiting for the next part", "wait", "request_ack", lm)
            else:
                say("guide", choice(rng, CONTINUE).format(**kw), "instruct", "continue", lm)
            budget -= 1

    def closing(self, last_segment: list) -> None:
        lm = nearest_landmark(self.gm, last_segment)
        self.say("guide", choice(self.rng, END_G), "ack", "acknowledge", lm)
        if self.rng.random() < 0.8:
            self.say("follower", choice(self.rng, END_F), "chat", "other", lm)


def simulate(rng: np.random.Generator, gm: GridMap, condition: str, n_target: int) -> list[Step]:
    """One session's actions, as a story over the route's segments."""
    visible = condition == "visible"
    route = list(gm.route)
    L = len(route)
    style = STYLE[condition]
    msg_frac = float(np.clip(rng.normal(style["msg_frac"], 0.08), 0.38, 0.85))
    n_draw_target = max(4, int(round(n_target * (1 - msg_frac) * rng.uniform(*style["draw_share"]))))
    n_seg = int(np.clip(n_draw_target, 4, L // 3))
    cuts = np.sort(rng.choice(np.arange(2, L - 1), size=n_seg - 1, replace=False))
    segments = [route[a:b] for a, b in zip([0, *cuts], [*cuts, L])]
    misplaced = set(gm.misplaced_landmarks())
    msgs_per_seg = n_target * msg_frac / n_seg
    q = float(np.clip(rng.normal(style["jitter"], 0.14), 0.1, 0.8))  # brush jitter
    p_err = float(np.clip(rng.normal(style["p_err"], 0.08), 0.08, 0.6))
    p_slip = float(np.clip(rng.normal(0.3, 0.12), 0.05, 0.6))
    p_notice = style["p_notice"]
    reset_at = set(
        int(k) for k in rng.choice(np.arange(1, n_seg), size=min(n_seg - 1, int(rng.poisson(0.9))), replace=False)
    )

    story = _Story(rng, gm, visible)
    story.opening(segments[0])
    drawn_upto = 0  # index into route of the drawn prefix (for resets)
    for k, seg in enumerate(segments):
        lm = nearest_landmark(gm, seg)
        pos, side = _relation(gm, seg, lm)
        kw = dict(
            dir=direction(seg),
            lm=lm,
            side=side,
            pos=pos,
            pos_word=side,
            n=len(seg),
            opp=_OPPOSITE[pos],
            other=choice(rng, sorted(gm.landmarks)),
            wrong=choice(rng, ["left", "right", "up", "down"]),
        )
        budget = max(0.0, rng.normal(msgs_per_seg, msgs_per_seg * 0.4))
        near_misplaced = lm in misplaced
        budget = story.instruction(kw, lm, budget, near_misplaced)
        if k in reset_at:
            story.reset_and_redraw(drawn_upto, q, lm)
        # Sometimes a real mistake, likelier near the misplaced landmark and early on.
        if rng.random() < p_err * (2.2 if near_misplaced else 1.0) * (1.2 - 0.5 * k / n_seg):
            story.mistake(seg, q, p_notice, kw, lm)
        story.stroke(seg, q, p_slip, lm)
        drawn_upto = route.index(seg[-1]) + 1
        story.after_stroke(kw, lm, budget)
    story.closing(segments[-1])
    return story.steps
