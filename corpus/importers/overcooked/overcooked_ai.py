"""Overcooked-AI trajectories: the standard JSON of ``AgentEvaluator.save_traj_as_json``
(HumanCompatibleAI/overcooked_ai, ``src/overcooked_ai_py/agents/benchmarking.py``), one run per
episode.

Keys read: ``ep_states`` (per episode, the state before each joint action: ``players`` with
``position`` [x, y], ``orientation`` [dx, dy] and ``held_object``; ``objects``; the orders, as
``all_orders`` of ``{"ingredients": [...]}`` or, in older files, an ``order_list`` of names), or
``ep_observations`` (the same states in the older web-demo format); ``ep_actions`` (per step one
action per player: ``"interact"`` or a direction [dx, dy], [0, 0] to stay); ``ep_rewards`` (the
sparse reward of each step); ``mdp_params`` (per episode, or one for all: ``layout_name`` and, when
saved, ``terrain``, the layout's rows of letters); optionally ``ep_returns`` and ``ep_infos``
(``agent_infos`` per player, which name the model when they hold a ``model`` or ``name``).
``ep_dones``, ``ep_lengths`` and ``env_params`` are not needed.

Mapping: two players, "player 0" and "player 1", no role, no turns. A step's grid is drawn from the
terrain and the state by the rules of Collab-Overcooked's drawing (:mod:`.grid`), so the same
replay reads both; without a terrain in the file the steps have no grid (a warning). The step's
actions are ``interact``, ``stay``, ``north``, ``south``, ``east``, ``west``. Completed actions are
every joint action but ``stay``, at the step it was taken, an interaction named with the tile
faced (``interact(pot)``) when the terrain is known. The score is the sum of the episode's
rewards; success is any delivery (a step with a positive reward: Overcooked-AI's orders can be
served again and again, there is no last one), and each delivery is one finished order, named by
the soup the delivering player held when the state says so, else ``soup``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from corpus.importers.overcooked.fields import INTEGER, LIST, NUMBER, OBJECT, STRING, Fields, TooMany
from corpus.importers.overcooked.grid import ARROWS, OVERCOOKED_AI_TILES, draw_cell
from corpus.kitchen.run import Completed, KitchenRun, KitchenStep
from corpus.loading.report import Report, describe

FORMAT = "overcooked-ai"
STATE_KEYS = ("ep_states", "ep_observations")
DIRECTIONS = {(0, 0): "stay", (0, -1): "north", (0, 1): "south", (1, 0): "east", (-1, 0): "west"}


def is_overcooked_ai(data: Any) -> bool:
    """Whether a parsed JSON file looks like an Overcooked-AI trajectory file."""
    return isinstance(data, dict) and any(k in data for k in (*STATE_KEYS, "ep_actions"))


def read_overcooked_ai(data: dict[str, Any], path: Path, rel: str, report: Report) -> list[KitchenRun] | None:
    """One run per episode of a parsed trajectory file, or None with every problem in ``report``."""
    f = Fields(report, rel)
    try:
        return _read(f, data, rel)
    except TooMany:
        return None


def _file_lists(f: Fields, data: dict[str, Any]) -> tuple[str, list[Any], list[Any], list[Any]] | None:
    """(the states' key, the episodes' states, actions and rewards), or None when one is missing or
    not a list."""
    key = next((k for k in STATE_KEYS if k in data), None)
    if key is None:
        f.problem("-", "ep_states", "missing (expected a list of episodes, each a list of states; or ep_observations)")
        return None
    episodes_states = f.value(data[key], LIST, "-", key)
    episodes_actions = f.field(data, "ep_actions", LIST, "-")
    episodes_rewards = f.field(data, "ep_rewards", LIST, "-")
    if episodes_states is None or episodes_actions is None or episodes_rewards is None:
        return None
    return key, episodes_states, episodes_actions, episodes_rewards


def _nth(values: list[Any] | None, ep: int) -> Any:
    """The episode's entry of an optional per-episode list (None where the list is absent or short)."""
    return values[ep] if values is not None and ep < len(values) else None


def _read(f: Fields, data: dict[str, Any], rel: str) -> list[KitchenRun] | None:
    """The runs of a parsed trajectory file, or None when it has an error."""
    lists = _file_lists(f, data)
    if lists is None:
        return None
    key, episodes_states, episodes_actions, episodes_rewards = lists
    n = len(episodes_actions)
    for name, value in ((key, episodes_states), ("ep_rewards", episodes_rewards)):
        if len(value) != n:
            f.problem("-", name, f"expected {n} episode(s) as in ep_actions, got {describe(value)}")
    params = _params(f, data.get("mdp_params"), n)
    returns = f.optional(data, "ep_returns", LIST, "-")
    infos = f.optional(data, "ep_infos", LIST, "-")
    if f.errors:
        return None
    base = rel.removesuffix(".json").removesuffix(".JSON")
    runs = []
    for ep in range(n):
        run = _episode(
            f,
            ep,
            base if n == 1 else f"{base}#{ep}",
            rel,
            key,
            episodes_states[ep],
            episodes_actions[ep],
            episodes_rewards[ep],
            params[ep] if params else {},
            _nth(returns, ep),
            _nth(infos, ep),
        )
        if run is not None:
            runs.append(run)
    return None if f.errors else runs


def _params(f: Fields, value: Any, n: int) -> list[dict[str, Any]]:
    """The mdp_params of each episode ({} where none): a list of one per episode, one for all, or
    one object."""
    if value is None:
        return [{}] * n
    if isinstance(value, dict):
        return [value] * n
    items = f.value(value, LIST, "-", "mdp_params")
    if items is None:
        return []
    out = []
    for k, item in enumerate(items):
        out.append(f.value(item, OBJECT, "-", f"mdp_params[{k}]") or {})
    if len(out) == 1:
        return out * n
    if len(out) != n:
        f.problem("-", "mdp_params", f"expected one per episode ({n}) or one for all, got {describe(items)}")
        return []
    return out


def _terrain(f: Fields, params: dict[str, Any], ep: int) -> list[str] | None:
    """The layout's rows of letters, None when the file does not hold them."""
    raw = params.get("terrain")
    if raw is None:
        return None
    fld = f"mdp_params[{ep}].terrain"
    rows = f.value(raw, LIST, "-", fld)
    if rows is None:
        return None
    out = []
    for y, row in enumerate(rows):
        if isinstance(row, str):
            out.append(row)
        elif isinstance(row, list) and all(isinstance(c, str) and len(c) == 1 for c in row):
            out.append("".join(row))
        else:
            f.problem("-", f"{fld}[{y}]", f"expected a row of one-letter tiles, got {describe(row)}")
            return None
    return out


def _episode_lists(
    f: Fields, record: str, key: str, states: Any, actions: Any, rewards: Any
) -> tuple[list[Any], list[Any], list[float]] | None:
    """An episode's states, joint actions and rewards, or None unless they are lists with a reward
    for each joint action and a state before each."""
    states = f.value(states, LIST, record, key)
    actions = f.value(actions, LIST, record, "ep_actions")
    rewards = f.numbers(rewards, NUMBER, record, "ep_rewards")
    if states is None or actions is None or rewards is None:
        return None
    if len(rewards) != len(actions):
        f.problem(
            record, "ep_rewards", f"expected {len(actions)} rewards, one per joint action, got {describe(rewards)}"
        )
        return None
    if len(states) < len(actions):
        f.problem(
            record, key, f"expected a state before each of the {len(actions)} joint actions, got {describe(states)}"
        )
        return None
    return states, actions, rewards


@dataclass
class _Played:
    """What an episode's steps add up to."""

    steps: list[KitchenStep] = field(default_factory=list)
    completed: list[Completed] = field(default_factory=list)
    finished: list[str] = field(default_factory=list)
    score: float = 0.0


def _play(
    f: Fields,
    ep: int,
    key: str,
    lists: tuple[list[Any], list[Any], list[float]],
    terrain: list[str] | None,
) -> _Played:
    """An episode's steps, completed actions, deliveries and score, step by step (a step with a bad
    state or joint action is left out, its problem reported)."""
    out = _Played()
    for t, (raw_state, joint, reward) in enumerate(zip(*lists)):
        step_record = f"episode {ep}, step {t}"
        state = _state(f, raw_state, step_record, f"{key}[{ep}][{t}]")
        names = _joint(f, joint, step_record, f"ep_actions[{ep}][{t}]")
        if state is None or names is None:
            continue
        out.score += reward
        for agent, name in enumerate(names):
            if name != "stay":
                out.completed.append(Completed(step=t, agent=agent, action=_named(name, state, agent, terrain)))
        if reward > 0:
            out.finished.append(_delivered(state))
        out.steps.append(
            KitchenStep(
                step=t,
                grid=_draw(terrain, state) if terrain is not None else "",
                actions=tuple(names),
                score=out.score,
                reward=reward,
                orders=tuple(_orders(state)),
            )
        )
    return out


def _extra(f: Fields, ep: int, layout: str, ep_return: Any, score: float) -> dict[str, Any]:
    """The run's extra facts (layout, episode, the file's own return, warned when it is not the score)."""
    extra: dict[str, Any] = {"layout": layout, "episode": ep}
    if ep_return is not None:
        extra["ep_return"] = ep_return
        if isinstance(ep_return, (int, float)) and not isinstance(ep_return, bool) and abs(ep_return - score) > 1e-9:
            f.warn(
                f"episode {ep}",
                f"ep_returns[{ep}]",
                f"ep_returns says {ep_return:g} but the episode's rewards add up to {score:g}; the score is their sum",
            )
    return extra


def _episode(
    f: Fields,
    ep: int,
    run_id: str,
    rel: str,
    key: str,
    states: Any,
    actions: Any,
    rewards: Any,
    params: dict[str, Any],
    ep_return: Any,
    infos: Any,
) -> KitchenRun | None:
    """One episode as a run, or None when it has an error."""
    record = f"episode {ep}"
    lists = _episode_lists(f, record, key, states, actions, rewards)
    if lists is None:
        return None
    terrain = _terrain(f, params, ep)
    named = params.get("layout_name")
    layout = named if isinstance(named, str) else ""
    if terrain is None:
        f.warn(
            record,
            f"mdp_params[{ep}].terrain",
            f"no terrain in the file (layout {layout or 'unnamed'}): the steps have no grid",
        )
    played = _play(f, ep, key, lists, terrain)
    if f.errors:
        return None
    return KitchenRun(
        id=run_id,
        source=rel,
        recipe="",
        level=None,
        models=_models(infos),
        scaffold="",
        score=played.score,
        success=bool(played.finished),
        finished=tuple(played.finished),
        steps=tuple(played.steps),
        completed=tuple(played.completed),
        format=FORMAT,
        extra=_extra(f, ep, layout, ep_return, played.score),
    )


def _state(f: Fields, raw: Any, record: str, fld: str) -> dict[str, Any] | None:
    state = f.value(raw, OBJECT, record, fld)
    if state is None:
        return None
    players = f.field(state, "players", LIST, record, fld + ".")
    if players is None:
        return None
    for k, player in enumerate(players):
        prefix = f"{fld}.players[{k}]"
        player = f.value(player, OBJECT, record, prefix)
        if player is None:
            return None
        for name in ("position", "orientation"):
            xy = f.numbers(player.get(name), INTEGER, record, f"{prefix}.{name}")
            if xy is None:
                return None
            if len(xy) != 2:
                f.problem(record, f"{prefix}.{name}", f"expected [x, y], got {describe(player.get(name))}")
                return None
        held = player.get("held_object")
        if held is not None and (f.value(held, OBJECT, record, prefix + ".held_object") is None):
            return None
    objects = f.optional(state, "objects", LIST, record, fld + ".", default=[])
    if objects is None:
        return None
    for k, obj in enumerate(objects):
        obj = f.value(obj, OBJECT, record, f"{fld}.objects[{k}]")
        if obj is None:
            return None
        if f.field(obj, "name", STRING, record, f"{fld}.objects[{k}].") is None:
            return None
        pos = f.numbers(obj.get("position"), INTEGER, record, f"{fld}.objects[{k}].position")
        if pos is None:
            return None
    return state


def _joint(f: Fields, joint: Any, record: str, fld: str) -> list[str] | None:
    """The names of one joint action's actions."""
    joint = f.value(joint, LIST, record, fld)
    if joint is None:
        return None
    names = []
    for k, action in enumerate(joint):
        if action == "interact":
            names.append("interact")
            continue
        if isinstance(action, list) and len(action) == 2 and all(_whole(v) for v in action):
            name = DIRECTIONS.get((int(action[0]), int(action[1])))
            if name is not None:
                names.append(name)
                continue
        f.problem(
            record, f"{fld}[{k}]", f"expected 'interact' or a direction [dx, dy] of -1, 0 or 1, got {describe(action)}"
        )
        return None
    return names


def _whole(v: Any) -> bool:
    return type(v) is int or (type(v) is float and v.is_integer())


def _facing_tile(state: dict[str, Any], agent: int, terrain: list[str] | None) -> str:
    if terrain is None or agent >= len(state["players"]):
        return ""
    player = state["players"][agent]
    (x, y), (dx, dy) = player["position"], player["orientation"]
    x, y = int(x) + int(dx), int(y) + int(dy)
    if 0 <= y < len(terrain) and 0 <= x < len(terrain[y]):
        return OVERCOOKED_AI_TILES.get(terrain[y][x], terrain[y][x])
    return ""


def _named(name: str, state: dict[str, Any], agent: int, terrain: list[str] | None) -> str:
    if name != "interact":
        return name
    tile = _facing_tile(state, agent, terrain)
    return f"interact({tile})" if tile else "interact"


def _soup_name(obj: dict[str, Any]) -> str:
    ingredients = obj.get("_ingredients")
    if isinstance(ingredients, list):
        names = [str(i["name"]) for i in ingredients if isinstance(i, dict) and isinstance(i.get("name"), str)]
        if names:
            return "soup(" + ", ".join(names) + ")"
    legacy = obj.get("state")
    if isinstance(legacy, list) and len(legacy) == 3 and isinstance(legacy[0], str):
        return f"soup({', '.join([legacy[0]] * int(legacy[1]))})" if isinstance(legacy[1], int) else "soup"
    return "soup"


def _delivered(state: dict[str, Any]) -> str:
    """What was delivered at a rewarded step: the soup a player holds in the state before it."""
    for player in state["players"]:
        held = player.get("held_object")
        if isinstance(held, dict) and held.get("name") == "soup":
            return _soup_name(held)
    return "soup"


def _orders(state: dict[str, Any]) -> list[str]:
    orders = state.get("all_orders")
    if isinstance(orders, list):
        out = []
        for order in orders:
            ingredients = order.get("ingredients") if isinstance(order, dict) else None
            if isinstance(ingredients, list):
                out.append("+".join(str(i) for i in ingredients))
        return out
    legacy = state.get("order_list")
    if isinstance(legacy, list):
        return [str(o) for o in legacy]
    return []


def _cell_of_object(tile: str, obj: dict[str, Any]) -> str:
    name = str(obj.get("name", ""))
    if tile == "P" and name == "soup":
        legacy = obj.get("state")
        if isinstance(legacy, list) and len(legacy) == 3:
            n, time = legacy[1], legacy[2]
        else:
            ingredients = obj.get("_ingredients")
            n = len(ingredients) if isinstance(ingredients, list) else 0
            time = obj.get("cooking_tick", obj.get("_cooking_tick", 0))
        if isinstance(time, int) and time > 0:
            return "o" + str(time)
        return "o=" if n == 2 else "o-"
    return tile + name[:1]


def _draw(terrain: list[str], state: dict[str, Any]) -> str:
    """The state drawn as Collab-Overcooked's ``state_string`` draws its kitchen (:mod:`.grid`)."""
    players = {}
    for k, p in enumerate(state["players"]):
        players[(int(p["position"][0]), int(p["position"][1]))] = (k, p)
    objects = {}
    for obj in state.get("objects") or []:
        objects[(int(obj["position"][0]), int(obj["position"][1]))] = obj
    lines = []
    for y, row in enumerate(terrain):
        cells = []
        for x, tile in enumerate(row):
            if (x, y) in players:
                k, p = players[(x, y)]
                arrow = ARROWS.get((int(p["orientation"][0]), int(p["orientation"][1])), "?")
                held = p.get("held_object")
                text = arrow + str(k) + (str(held.get("name", ""))[:1] if isinstance(held, dict) else "")
            elif (x, y) in objects:
                text = _cell_of_object(tile, objects[(x, y)])
            else:
                text = tile
            cells.append(draw_cell(text))
        lines.append("".join(cells) + "\n\n")
    return "".join(lines)


def _models(infos: Any) -> tuple[str, ...]:
    """The players' models when their agent infos name them (``model``, else ``name``)."""
    if not isinstance(infos, list):
        return ("", "")
    models = ["", ""]
    for step in infos:
        agent_infos = step.get("agent_infos") if isinstance(step, dict) else None
        if not isinstance(agent_infos, list):
            continue
        for k, info in enumerate(agent_infos[:2]):
            if isinstance(info, dict) and not models[k]:
                name = info.get("model", info.get("name"))
                if isinstance(name, str):
                    models[k] = name
        if all(models):
            break
    return tuple(models)
