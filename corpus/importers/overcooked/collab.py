"""Collab-Overcooked run logs: one JSON object per run, as the benchmark's ``main.py`` dumps it.

The shapes read (see docs in the package's ``__init__`` for the mapping):

- the benchmark (YusaeMeow/Collab-Overcooked) and most forks: ``total_timestamp``,
  ``total_order_finished``, ``total_score``, ``total_action_list`` (per agent, each physical action
  with the step it **completed** at) and ``content`` (one record per step: ``timestamp``,
  ``order_list``, ``actions``, ``map``, ``statistical_data`` with ``score``, ``communication``,
  ``error`` and ``error_correction``, and ``content`` with the turns of the conversations each agent
  started, ``{agent, analysis, say, plan}``; ``original_log`` is ``""``);
- CookPandar/Collab-Overcooked: turns ``{agent, think, say, action, recent_goal}`` (``say`` ends in a
  stray code fence, ``action`` starts with ``Action: ``), ``original_log`` with every LLM call and
  its tokens, ``process_reward`` per step and ``process_rewards``, and ``prompt_templates`` (the
  Chef's ``order`` and ``recipe_text``);
- shekharashishraj/Collab-Overcooked's cross-play and agent-framework branches: a top-level
  ``agents`` list (``player``, ``index``, ``role``, ``agent_type``, ``model``, ``provider``), the
  same per step as ``content[i].agent_models``, and ``timestep_conversations``.

Numbers come as integers or floats in the same fields; an agent's ``observation`` is a string, or
``[]`` when it made no call at that step; neither is a problem. A file of several episodes appended
(the benchmark's ``main.py`` across a session) is read as its last episode, with a warning; orders
outside the benchmark's recipes are named in a warning.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from corpus.importers.overcooked.fields import INTEGER, LIST, NUMBER, OBJECT, STRING, Fields, TooMany
from corpus.importers.overcooked.paths import PathFacts, path_facts
from corpus.importers.overcooked.recipes import RECIPE_LEVELS, recipe_level
from corpus.kitchen.run import Completed, Correction, KitchenRun, KitchenStep, Turn
from corpus.loading.report import Report

FORMAT = "collab-overcooked"
RUN_KEYS = frozenset({"total_timestamp", "total_order_finished", "total_score", "total_action_list", "content"})
FENCE = "```"
SILENT = frozenset({"[NOTHING]", "[EMPTY]"})  # an agent that says nothing (both treated alike by the benchmark)
ROLE_NAMES = ("Chef", "Assistant")
ERROR_KINDS = (("format_error", "format"), ("validator_error", "validator"))


def is_collab_run(data: Any) -> bool:
    """Whether a parsed JSON file looks like a Collab-Overcooked run (two of its top-level keys)."""
    return isinstance(data, dict) and len(RUN_KEYS.intersection(data)) >= 2


def clean_say(say: str) -> str:
    """The message as sent: the trailing code fence the logs carry dropped, "" for ``[NOTHING]``."""
    text = say.rstrip()
    if text.endswith(FENCE):
        text = text[: -len(FENCE)].rstrip()
    return "" if text in SILENT else text


def clean_action(action: str) -> str:
    """The action without the log's ``Action: `` prefix (and any trailing fence)."""
    text = action.strip()
    if text.startswith("Action:"):
        text = text[len("Action:") :].strip()
    if text.endswith(FENCE):
        text = text[: -len(FENCE)].rstrip()
    return text


def read_collab(data: dict[str, Any], path: Path, rel: str, report: Report) -> KitchenRun | None:
    """The run in a parsed Collab-Overcooked log, or None with every problem in ``report``."""
    f = Fields(report, rel)
    try:
        return _Run(f, data, path, rel).read()
    except TooMany:
        return None


class _Run:
    """One log being read."""

    def __init__(self, f: Fields, data: dict[str, Any], path: Path, rel: str):
        self.f = f
        self.data = data
        self.path = path
        self.rel = rel
        self.steps: list[KitchenStep] = []
        self.turns: list[Turn] = []
        self.corrections: list[Correction] = []
        self.conversation = 0
        self.log_tokens = 0  # every call of original_log
        self.has_log = False
        self.comm_tokens = 0  # communication turns
        self.correction_tokens = 0  # format and validator corrections
        self.turn_fields: set[str] = set()
        self.step_models: list[Any] | None = None

    # -- the run ------------------------------------------------------------------------------

    def read(self) -> KitchenRun | None:
        f, data = self.f, self.data
        finished = self._strings(f.field(data, "total_order_finished", LIST, "-"), "-", "total_order_finished")
        total = f.field(data, "total_score", NUMBER, "-")
        completed = self._completed(f.field(data, "total_action_list", LIST, "-"))
        content = f.field(data, "content", LIST, "-")
        if "total_timestamp" in data:
            f.numbers(data["total_timestamp"], INTEGER, "-", "total_timestamp")
        order, recipe_text = self._templates(f.optional(data, "prompt_templates", OBJECT, "-"))
        run_agents = f.optional(data, "agents", LIST, "-")
        first = self._last_episode(content or [])
        for i, raw in enumerate(content or []):
            if i >= first:
                self._step(i, raw)
        if f.errors or finished is None or total is None or completed is None or content is None:
            return None
        if first:
            finished = self._finished_last(finished)
        return self._run(finished, total, completed, order, recipe_text, run_agents)

    def _last_episode(self, content: list[Any]) -> int:
        """Where the file's last episode starts in ``content`` (0 for a file of one episode).

        The benchmark's ``main.py`` keeps one statistics record across the episodes of a session: each
        episode's steps are appended to ``content`` (step numbers restarting at 0) and the file of the
        k-th episode holds all k, while ``total_action_list`` and ``total_score`` are the k-th
        episode's alone. So the last episode is this file's run (read with its completed actions);
        the earlier ones are the runs of the files written before it and are left out, with a
        warning saying so (read as one run, the first episode would be counted in every later file)."""
        stamps = [raw.get("timestamp") if isinstance(raw, dict) else None for raw in content]
        whole = [s if type(s) is int else None for s in stamps]
        starts = [
            i
            for i in range(1, len(whole))
            if (a := whole[i - 1]) is not None and (b := whole[i]) is not None and b <= a
        ]
        if not starts:
            return 0
        where = ", ".join(f"content[{i}]" for i in starts[:5]) + (" ..." if len(starts) > 5 else "")
        self.f.warn(
            "-",
            "content",
            f"the file holds {len(starts) + 1} episodes appended one after another (the step numbers start again "
            f"at {where}), as the benchmark writes a session's episodes: each episode's file repeats the episodes "
            f"before it, and its total_action_list and total_score are its own episode's. Only the last episode, "
            f"content[{starts[-1]}:], is read as this run; the {len(starts)} earlier one(s) are the runs of the "
            "files written before it and are not read again",
        )
        return starts[-1]

    def _finished_last(self, finished: list[str]) -> list[str]:
        """The orders the last episode finished: ``total_order_finished`` gains an order at every
        rewarded step of every episode, so the last episode's are the last as many entries as it
        has rewarded steps."""
        rewarded = sum(1 for s in self.steps if s.score > 0)
        return finished[len(finished) - rewarded :] if rewarded else []

    def _run(
        self,
        finished: list[str],
        total: float,
        completed: list[Completed],
        order: str,
        recipe_text: str,
        run_agents: list[Any] | None,
    ) -> KitchenRun | None:
        """The run built from what was read: its recipe, models and scaffolds, running scores and tokens."""
        facts = path_facts(self.path)
        recipe = self._recipe(order, facts)
        agents = self._run_agents(run_agents, facts)
        if agents is None:
            return None
        models, scaffolds, models_from = agents
        tokens = self.log_tokens if self.has_log else self.comm_tokens + self.correction_tokens
        extra: dict[str, Any] = {
            "tokens_from": "original_log" if self.has_log else "communication and correction tokens",
            "communication_tokens": self.comm_tokens,
            "models_from": models_from,
            "turn_fields": "/".join(sorted(self.turn_fields)),
        }
        if recipe_text:
            extra["recipe_text"] = recipe_text
        if any(scaffolds):
            extra["scaffolds"] = list(scaffolds)
        return KitchenRun(
            id=self.rel.removesuffix(".json").removesuffix(".JSON"),
            source=self.rel,
            recipe=recipe,
            level=recipe_level(recipe),
            models=models,
            scaffold=_scaffold_name(scaffolds),
            score=total,
            success=bool(finished) and (not recipe or recipe in finished),
            finished=tuple(finished),
            steps=tuple(self._running_scores(total)),
            turns=tuple(self.turns),
            completed=tuple(sorted(completed, key=lambda c: (c.step, c.agent))),
            corrections=tuple(self.corrections),
            tokens=int(round(tokens)),
            format=FORMAT,
            extra=extra,
        )

    def _recipe(self, order: str, facts: PathFacts) -> str:
        """The run's recipe: the Chef's order, else the folder's, else the first step's only order
        (a warning when the order and the folder differ, or the recipe is not the benchmark's)."""
        recipe = order or facts.recipe
        if not recipe and self.steps and len(self.steps[0].orders) == 1:
            recipe = self.steps[0].orders[0]
        if order and facts.recipe and order != facts.recipe:
            self.f.warn(
                "-",
                "prompt_templates.Chef.order",
                f"the run's order '{order}' is not the recipe its folder names ('{facts.recipe}'); the run's is used",
            )
        self._check_orders(recipe)
        return recipe

    def _run_agents(
        self, run_agents: list[Any] | None, facts: PathFacts
    ) -> tuple[tuple[str, ...], tuple[str, ...], str] | None:
        """(models, scaffolds, where the models came from): the log's ``agents``, else its steps'
        ``agent_models``, the folder's names filling what they leave out; None when one is wrong."""
        models: tuple[str, ...] = ("", "")
        scaffolds: tuple[str, ...] = ()
        models_from = ""
        record, fld = ("-", "agents") if run_agents is not None else ("content[0]", "agent_models")
        listed = run_agents if run_agents is not None else self.step_models
        if listed is not None:
            got = self._agents(listed, record, fld)
            if got is None:
                return None
            models, scaffolds, models_from = got[0], got[1], fld
        if facts.found:
            if not models or not any(models):
                models, models_from = facts.models, "path"
            elif tuple(facts.models) != tuple(models):
                self.f.warn(
                    "-",
                    models_from,
                    f"the run names the models {' -> '.join(m or '?' for m in models)}; its folder "
                    f"'{facts.folder}' names {' -> '.join(facts.models)}; the run's are used",
                )
            if not any(scaffolds):
                scaffolds = facts.scaffolds
        return models, scaffolds, models_from

    def _running_scores(self, total: float) -> list[KitchenStep]:
        """The steps with their running total as score (a step's statistical_data.score is the reward
        the environment gave at that step, the benchmark's combine_statistic_dict); a warning when the
        total is not ``total_score``."""
        running = 0.0
        scored: list[KitchenStep] = []
        for s in self.steps:
            running += s.score
            scored.append(_with_score(s, running))
        if scored and abs(running - total) > 1e-9:
            self.f.warn(
                "-",
                "total_score",
                f"total_score is {total:g} but the steps' scores add up to {running:g}; the run's score is total_score",
            )
        return scored

    def _check_orders(self, recipe: str) -> None:
        """A warning naming the orders that are not among the benchmark's recipes (the run's level is
        then unknown and it is left out of the per-level rows), or saying that the run has several
        orders and so no single recipe."""
        orders = list(self.steps[0].orders) if self.steps else []
        if recipe and recipe in RECIPE_LEVELS:
            return
        if recipe:
            self.f.warn(
                "-",
                "content[0].order_list",
                f"the run's order '{recipe}' is not among the benchmark's {len(RECIPE_LEVELS)} recipes: its task "
                "level is unknown, and it is left out of the per-level rows",
            )
            return
        if not orders:
            return
        unknown = [o for o in dict.fromkeys(orders) if o not in RECIPE_LEVELS]
        said = f"; not among the benchmark's recipes: {', '.join(unknown)}" if unknown else ""
        self.f.warn(
            "-",
            "content[0].order_list",
            f"the run has {len(orders)} orders ({', '.join(orders)}), so no single recipe: its recipe is left "
            f"empty and its task level unknown (it is left out of the per-level rows){said}",
        )

    def _strings(self, value: list[Any] | None, record: str, fld: str) -> list[str] | None:
        if value is None:
            return None
        out = []
        for k, item in enumerate(value):
            got = self.f.value(item, STRING, record, f"{fld}[{k}]")
            if got is None:
                return None
            out.append(got)
        return out

    def _completed(self, value: list[Any] | None) -> list[Completed] | None:
        f = self.f
        if value is None:
            return None
        if f.pair(value, "-", "total_action_list", "one list of completed actions per agent") is None:
            return None
        out = []
        for agent, actions in enumerate(value):
            actions = f.value(actions, LIST, "-", f"total_action_list[{agent}]")
            for k, entry in enumerate(actions or []):
                record = f"total_action_list[{agent}][{k}]"
                entry = f.value(entry, OBJECT, record, "(entry)")
                if entry is None:
                    continue
                step = f.field(entry, "timestamp", INTEGER, record)
                action = f.field(entry, "action", STRING, record)
                if step is not None and action is not None:
                    out.append(Completed(step=step, agent=agent, action=action))
        return out

    def _templates(self, templates: dict[str, Any] | None) -> tuple[str, str]:
        """(order, recipe text) of the Chef's prompt template, "" where absent."""
        if not templates:
            return "", ""
        chef = self.f.optional(templates, "Chef", OBJECT, "-", "prompt_templates.")
        if not chef:
            return "", ""
        order = self.f.text(chef, "order", "-", "prompt_templates.Chef.") or ""
        recipe_text = self.f.text(chef, "recipe_text", "-", "prompt_templates.Chef.") or ""
        return order, recipe_text

    def _agents(self, agents: list[Any], record: str, fld: str) -> tuple[tuple[str, ...], tuple[str, ...]] | None:
        """(models, scaffolds), Chef first, from an ``agents`` / ``agent_models`` list."""
        f = self.f
        models, scaffolds = ["", ""], ["", ""]
        for k, raw in enumerate(agents):
            prefix = f"{fld}[{k}]."
            entry = f.value(raw, OBJECT, record, f"{fld}[{k}]")
            if entry is None:
                continue
            index: Any = k
            if "index" in entry:
                index = f.value(entry["index"], INTEGER, record, prefix + "index")
            elif isinstance(entry.get("player"), str) and entry["player"][1:].isdigit():
                index = int(entry["player"][1:])  # "P0", "P1"
            if index is None:
                continue
            if index not in (0, 1):
                f.problem(record, prefix + "index", f"expected 0 (Chef) or 1 (Assistant), got the integer {index}")
                continue
            model = f.text(entry, "model", record, prefix)
            scaffold = f.text(entry, "agent_type", record, prefix)
            if model is not None:
                models[index] = model
            if scaffold is not None:
                scaffolds[index] = scaffold
        if f.errors:
            return None
        return tuple(models), tuple(scaffolds)

    # -- one step -----------------------------------------------------------------------------

    def _step(self, i: int, raw: Any) -> None:
        f = self.f
        record = f"content[{i}]"
        rec = f.value(raw, OBJECT, record, "(step)")
        if rec is None:
            return
        step = f.field(rec, "timestamp", INTEGER, record)
        orders = self._strings(f.field(rec, "order_list", LIST, record), record, "order_list")
        actions = self._actions(f.field(rec, "actions", LIST, record), record)
        grid = f.field(rec, "map", STRING, record)
        stats = f.field(rec, "statistical_data", OBJECT, record)
        inner = f.field(rec, "content", OBJECT, record)
        if "agent_models" in rec and self.step_models is None:
            self.step_models = f.value(rec["agent_models"], LIST, record, "agent_models")
        if step is None or stats is None or inner is None:
            return
        score = f.field(stats, "score", NUMBER, record, "statistical_data.")
        reward = score
        process = f.optional(stats, "process_reward", OBJECT, record, "statistical_data.")
        if process is not None:
            reward = f.field(process, "team_total", NUMBER, record, "statistical_data.process_reward.")
        comm_tokens = self._communication(stats, record)
        self._corrections(stats, step, record)
        calls = self._original_log(inner, record)
        self._turns(inner, step, record, comm_tokens, calls)
        if orders is None or actions is None or grid is None or score is None or reward is None:
            return
        self.steps.append(KitchenStep(step, grid, tuple(actions), score, reward, tuple(orders)))

    def _actions(self, value: list[Any] | None, record: str) -> list[str] | None:
        if value is None:
            return None
        out = []
        for k, item in enumerate(value):
            if item is None:  # an agent with no action yet: the benchmark writes null
                out.append("")
                continue
            got = self.f.value(item, STRING, record, f"actions[{k}]")
            if got is None:
                return None
            out.append(got)
        return out

    def _communication(self, stats: dict[str, Any], record: str) -> list[list[int] | None]:
        """Per initiating agent, the tokens of its conversation's turns (None where unreadable)."""
        f = self.f
        comm = f.field(stats, "communication", LIST, record, "statistical_data.")
        if comm is None or f.pair(comm, record, "statistical_data.communication", "one per agent") is None:
            return [None, None]
        out: list[list[int] | None] = []
        for a, raw in enumerate(comm):
            fld = f"statistical_data.communication[{a}]"
            entry = f.value(raw, OBJECT, record, fld)
            if entry is None:
                out.append(None)
                continue
            tokens = f.numbers(entry.get("token", []), INTEGER, record, fld + ".token")
            if "turn" in entry:
                f.value(entry["turn"], LIST, record, fld + ".turn")
            if tokens is not None:
                self.comm_tokens += sum(tokens)
            out.append(tokens)
        return out

    def _corrections(self, stats: dict[str, Any], step: int, record: str) -> None:
        """A step's format and validator errors (one correction each) and its correction tokens."""
        f = self.f
        errors = f.field(stats, "error", LIST, record, "statistical_data.")
        if errors is not None and f.pair(errors, record, "statistical_data.error", "one per agent") is not None:
            for agent, raw in enumerate(errors):
                fld = f"statistical_data.error[{agent}]"
                entry = f.value(raw, OBJECT, record, fld)
                if entry is not None:
                    self._agent_errors(entry, step, agent, record, fld)
        corrections = f.optional(stats, "error_correction", LIST, record, "statistical_data.")
        for agent, raw in enumerate(corrections or []):
            fld = f"statistical_data.error_correction[{agent}]"
            entry = f.value(raw, OBJECT, record, fld)
            if entry is None:
                continue
            for key in ("format_correction", "validator_correction"):
                part = f.optional(entry, key, OBJECT, record, fld + ".")
                if part is None:
                    continue
                tokens = f.numbers(part.get("correction_tokens", []), NUMBER, record, f"{fld}.{key}.correction_tokens")
                self.correction_tokens += int(sum(tokens or []))

    def _agent_errors(self, entry: dict[str, Any], step: int, agent: int, record: str, fld: str) -> None:
        """One agent's errors of a step, each a correction (``error_num`` counts every error; a log
        may keep fewer messages than it counts)."""
        f = self.f
        for key, kind in ERROR_KINDS:
            part = f.optional(entry, key, OBJECT, record, fld + ".")
            if part is None:
                continue
            prefix = f"{fld}.{key}."
            n = f.optional(part, "error_num", INTEGER, record, prefix, default=0)
            messages = self._strings(
                f.optional(part, "error_message", LIST, record, prefix, default=[]),
                record,
                prefix + "error_message",
            )
            if n is None or messages is None:
                continue
            for k in range(max(n, len(messages))):
                message = messages[k] if k < len(messages) else ""
                self.corrections.append(Correction(step=step, agent=agent, kind=kind, message=message))

    def _original_log(self, inner: dict[str, Any], record: str) -> list[list[tuple[int, str, int]]]:
        """Per agent, its LLM calls logged at this step: (timestamp, call_type, tokens)."""
        f = self.f
        log = inner.get("original_log")
        if not isinstance(log, list):  # the benchmark writes "" here
            return [[], []]
        if f.pair(log, record, "content.original_log", "one list of calls per agent") is None:
            return [[], []]
        self.has_log = True
        out: list[list[tuple[int, str, int]]] = []
        for agent, calls in enumerate(log):
            fld = f"content.original_log[{agent}]"
            calls = f.value(calls, LIST, record, fld)
            mine = []
            for k, raw in enumerate(calls or []):
                prefix = f"{fld}[{k}]."
                call = f.value(raw, OBJECT, record, f"{fld}[{k}]")
                if call is None:
                    continue
                tokens = f.field(call, "tokens", INTEGER, record, prefix)
                when = f.optional(call, "timestamp", INTEGER, record, prefix, default=-1)
                kind = f.text(call, "call_type", record, prefix)
                if tokens is None or when is None or kind is None:
                    continue
                self.log_tokens += tokens
                mine.append((when, kind, tokens))
            out.append(mine)
        return out

    def _turns(
        self,
        inner: dict[str, Any],
        step: int,
        record: str,
        comm_tokens: list[list[int] | None],
        calls: list[list[tuple[int, str, int]]],
    ) -> None:
        f = self.f
        blocks = f.field(inner, "content", LIST, record, "content.")
        if (
            blocks is None
            or f.pair(blocks, record, "content.content", "the turns of the conversation each agent started") is None
        ):
            return
        for initiator, block in enumerate(blocks):
            fld = f"content.content[{initiator}]"
            block = f.value(block, LIST, record, fld)
            if not block:
                continue
            read = [self._turn(raw, f"{fld}[{k}]", record) for k, raw in enumerate(block)]
            if any(t is None for t in read):
                continue
            tokens = _turn_tokens(read, initiator, step, comm_tokens[initiator], calls)
            for entry, n in zip(read, tokens):
                assert entry is not None
                agent, say, action, think, goal, analysis = entry
                self.turns.append(
                    Turn(step, agent, self.conversation, initiator, say, action, think, goal, analysis, n)
                )
            self.conversation += 1

    def _turn(self, raw: Any, fld: str, record: str) -> tuple[int, str, str, str, str, str] | None:
        f = self.f
        entry = f.value(raw, OBJECT, record, fld)
        if entry is None:
            return None
        agent = f.field(entry, "agent", INTEGER, record, fld + ".")
        if agent is not None and agent not in (0, 1):
            f.problem(record, fld + ".agent", f"expected 0 (Chef) or 1 (Assistant), got the integer {agent}")
            return None
        say = f.field(entry, "say", STRING, record, fld + ".")
        action = f.text(entry, "action", record, fld + ".")
        think = f.text(entry, "think", record, fld + ".")
        goal = (
            f.text(entry, "recent_goal", record, fld + ".")
            if "recent_goal" in entry
            else f.text(entry, "plan", record, fld + ".")
        )
        analysis = f.text(entry, "analysis", record, fld + ".")
        if agent is None or say is None or action is None or think is None or goal is None or analysis is None:
            return None
        self.turn_fields.update(k for k in ("think", "recent_goal", "analysis", "plan") if k in entry)
        return agent, clean_say(say), clean_action(action), think, goal, analysis


def _turn_tokens(
    turns: list[Any],
    initiator: int,
    step: int,
    comm: list[int] | None,
    calls: list[list[tuple[int, str, int]]],
) -> list[int | None]:
    """The tokens of each turn of one conversation: ``communication[initiator].token`` by position
    when it holds one count per turn; otherwise, for a conversation of the initiator alone, its
    calls at this step other than communication calls in ``original_log`` (its planning calls), by
    position when there are as many; else unknown (None)."""
    if comm is not None and len(comm) == len(turns):
        return list(comm)
    if all(t[0] == initiator for t in turns):
        own = [tokens for when, kind, tokens in calls[initiator] if when == step and kind != "communication"]
        if len(own) == len(turns):
            return list(own)
    return [None] * len(turns)


def _scaffold_name(scaffolds: tuple[str, ...]) -> str:
    """The run's scaffold: the agents' one, or theirs joined Chef first ("" when none is known)."""
    if not any(scaffolds):
        return ""
    return scaffolds[0] if len(set(scaffolds)) == 1 else " -> ".join(s or "?" for s in scaffolds)


def _with_score(step: KitchenStep, score: float) -> KitchenStep:
    return KitchenStep(step.step, step.grid, step.actions, score, step.reward, step.orders)
