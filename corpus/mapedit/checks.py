"""What is wrong with a map being edited, each problem with the cells involved.

Errors stop the map from being exported or attached to sessions; warnings do not:

- the start is not placed (error); the finish is not placed while there is a route (error);
- the route: no route yet (warning: task metrics stay undefined); two consecutive cells that are
  not 8-neighbours (a gap, error); it does not begin at the start or end at the finish (error); it
  crosses a blocked landmark (error);
- landmarks: a cell outside the grid (error); two landmarks on the same cell (error), on either
  map; the start or finish on a blocked landmark (error);
- the Follower's map: the task moves one landmark; moving none or several is a warning.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

from corpus.mapedit.draft import FOLLOWER, GUIDE, Draft
from corpus.model import Cell

ERROR = "error"
WARNING = "warning"
VIEW_NAMES = {GUIDE: "the Guide's map", FOLLOWER: "the Follower's map"}


@dataclass(frozen=True)
class Problem:
    code: str
    message: str
    cells: tuple[Cell, ...] = ()
    severity: str = ERROR

    def as_dict(self) -> dict:
        return {"severity": self.severity, "problem": self.message, "cells": fmt_cells(self.cells)}


def fmt_cells(cells, limit: int = 12) -> str:
    cells = list(cells)
    text = ", ".join(f"[{r}, {c}]" for r, c in cells[:limit])
    return text + (f" and {len(cells) - limit} more" if len(cells) > limit else "")


def _route_problems(d: Draft) -> list[Problem]:
    out: list[Problem] = []
    route = d.route
    if not route:
        return [
            Problem(
                "no_route",
                "no route yet: accuracy, coverage and the drawing score of the map's "
                "sessions stay undefined until it has one",
                severity=WARNING,
            )
        ]
    for a, b in zip(route, route[1:]):
        if max(abs(a[0] - b[0]), abs(a[1] - b[1])) != 1:
            out.append(
                Problem(
                    "route_gap",
                    f"the route jumps from {fmt_cells([a])} to {fmt_cells([b])}: "
                    "consecutive route cells must be 8-neighbours",
                    (a, b),
                )
            )
    if d.start is not None and route[0] != d.start:
        out.append(
            Problem(
                "route_start",
                f"the route begins at {fmt_cells([route[0]])}, not at the start {fmt_cells([d.start])}",
                (route[0], d.start),
            )
        )
    if d.finish is None:
        out.append(Problem("no_finish", "the route has no finish: place the finish where it ends", (route[-1],)))
    elif route[-1] != d.finish:
        out.append(
            Problem(
                "route_finish",
                f"the route ends at {fmt_cells([route[-1]])}, not at the finish {fmt_cells([d.finish])}",
                (route[-1], d.finish),
            )
        )
    on_route = set(route)
    for name, lm in d.landmarks:
        if lm.blocked:
            crossed = sorted(on_route & set(lm.cells))
            if crossed:
                out.append(Problem("route_blocked", f"the route crosses the blocked landmark '{name}'", tuple(crossed)))
    outside = [c for c in route if not d.inside(c)]
    if outside:
        out.append(Problem("route_outside", "route cells outside the grid", tuple(outside)))
    return out


def _landmark_problems(d: Draft, view: str, only: set[str] | None = None) -> list[Problem]:
    """Problems of one map's landmarks; ``only``: those involving these landmarks (the moved ones)."""
    out: list[Problem] = []
    where = VIEW_NAMES[view]
    landmarks = d.view(view)
    rows, cols = d.grid_size

    def concerned(*names: str) -> bool:
        return only is None or any(n in only for n in names)

    for name, lm in landmarks:
        if not concerned(name):
            continue
        outside = [c for c in lm.cells if not d.inside(c)]
        if outside:
            out.append(
                Problem("outside", f"'{name}' on {where} has cells outside the {rows} x {cols} grid", tuple(outside))
            )
        if not lm.cells:
            out.append(Problem("empty", f"'{name}' on {where} has no cells"))
    for (n1, a), (n2, b) in combinations(landmarks, 2):
        both = sorted(set(a.cells) & set(b.cells)) if concerned(n1, n2) else []
        if both:
            out.append(Problem("overlap", f"'{n1}' and '{n2}' overlap on {where}", tuple(both)))
    for what, cell in (("start", d.start), ("finish", d.finish)):
        if cell is None:
            continue
        for name, lm in landmarks:
            if concerned(name) and lm.blocked and cell in set(lm.cells):
                out.append(
                    Problem(f"{what}_blocked", f"the {what} is on the blocked landmark '{name}' on {where}", (cell,))
                )
    return out


def check(d: Draft) -> list[Problem]:
    """Every problem of the draft: errors first, then warnings."""
    problems: list[Problem] = []
    if d.start is None:
        problems.append(Problem("no_start", "no start: place the start point"))
    for what, cell in (("start", d.start), ("finish", d.finish)):
        if cell is not None and not d.inside(cell):
            problems.append(Problem(f"{what}_outside", f"the {what} is outside the grid", (cell,)))
    problems += _route_problems(d)
    problems += _landmark_problems(d, GUIDE)
    if d.follower is not None:
        moved = d.moved()
        problems += _landmark_problems(d, FOLLOWER, only=set(moved))
        if len(moved) != 1:
            what = "no landmark" if not moved else f"{len(moved)} landmarks ({', '.join(moved)})"
            problems.append(
                Problem(
                    "follower_moves",
                    f"the Follower's map differs from the Guide's in {what}; the task moves one",
                    severity=WARNING,
                )
            )
    return sorted(problems, key=lambda p: p.severity != ERROR)


def errors(problems: list[Problem]) -> list[Problem]:
    return [p for p in problems if p.severity == ERROR]


def problem_cells(problems: list[Problem]) -> set[Cell]:
    """The cells of every error, to mark on the map."""
    return {c for p in problems if p.severity == ERROR for c in p.cells}
