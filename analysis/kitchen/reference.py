"""The TGCO paper's authors' own audit as a reference: their ``tgco_request_units.csv`` read, their
request units matched to ours, and the agreement of the two audits.

The authors' repository (shekharashishraj/Collab-Overcooked, ``scripts/analysis/tgco_audit.py``)
writes one row per request unit it parsed from a run's messages: ``source_file`` (the run),
``message_timestep``, ``speaker``, ``target_agent``, ``request_action``, ``request_object``,
``request_location``, ``request_text``, the matched action and its step, the validator errors
between, and ``tgco_label`` (Effective, Assisted, Redundant, Ineffective). :func:`read_reference`
checks every row (file, row, field); :func:`compare` matches units and reports.

**Runs.** A row's ``source_file`` names a run of ours when the run's source path (the path it was
imported from) is the end of it, folder by folder (``src/data/a/b/run.json`` and ``a/b/run.json``),
else when the file names agree and only one run has that name. Rows of runs that are not among
ours are counted apart (by file), not as units only they found.

**Units.** Within a run, one of their units and one of ours are the same request when they were sent
at the same step by the same agent and ask for the same action (``pickup``, ``place_obj_on_counter``,
...) of the same object. Four passes, each over the units still unmatched: from the same message
(their ``request_text`` is the say ours was read from) with equal objects; from the same message
with related objects (equal, either unnamed, or one's words inside the other's: ``potato`` and
``potato_slices``, the object their script finds first in the message against the one the clause
names); then from any message of that step, equal objects, then related ones. Each unit is matched
once, in the order sent; a unit left over is *only ours* or *only theirs*.

**Agreement**, over the matched units: the confusion of our outcome against theirs, the percent
agreement, and Cohen's kappa with its 95 % interval (``statsmodels.stats.inter_rater.cohens_kappa``:
the asymptotic standard error and a normal interval; the same kappa as
``sklearn.metrics.cohen_kappa_score``, tested). Every disagreement is listed with both decisions, why
ours decided as it did (the audit's reason and deciding check), what their row says, and the rule
of theirs that departs from Appendix C where one explains it.

**Where the two rules differ** (the authors' script against the paper's Appendix C, which
:mod:`analysis.kitchen.tgco` follows, as the procedure the paper states):

- *Window*: theirs is a fixed 5 steps after the message, (t, t + 5]; ours is Appendix B.2's
  level-normalized window, [t, t + w_l] (``--window-steps 5`` gives theirs for comparison).
- *Redundancy*: theirs counts a completion before the message by the target only; Appendix C's is
  "(o, a) already completed before t", by anyone (ours).
- *One completion, one request*: theirs credits a partner action to the first request it matches and
  calls every later request it matches Redundant; Appendix C has no such rule, so ours calls each
  request the partner carried out in its window Effective or Assisted.
- *Validator*: theirs counts the target's validator errors in (t, m]; Appendix C asks for a correction
  "before match", [t, m) (ours).
- *Relevance*: theirs checks none; Appendix C's relevance check is ours.
- *Parsing*: theirs reads ``say`` only, with a fixed list of object words, clauses cut at every
  "and", ", " or "then", any message with "please", "can you", ... read whole (so the speaker's own
  plans in it become requests), and no ``cut``, ``bake`` or ``stir``; ours reads plans and says by the
  rules of :mod:`analysis.kitchen.tgco` (R1-R4) and :mod:`analysis.kitchen.language` (L1-L12).
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from analysis.kitchen.metrics import MIN_UNITS, few_units
from analysis.kitchen.requests import OpAction, clean_message, normalize_arg
from analysis.kitchen.tgco import ASSISTED, EFFECTIVE, INEFFECTIVE, OUTCOMES, REDUNDANT, UnitOutcome
from analysis.results import CONFIDENCE, Estimate
from corpus.kitchen.run import ROLES, KitchenRun
from corpus.loading.report import Report, describe
from corpus.values import Undefined

REQUIRED = (
    "source_file",
    "message_timestep",
    "speaker",
    "target_agent",
    "request_action",
    "request_object",
    "tgco_label",
)
LABELS = {o.capitalize(): o for o in OUTCOMES}  # their label -> our outcome
THEIR_WINDOW = 5  # tgco_audit.py's default window (steps after the message)
MAX_BYTES = 16 * 2**20  # a reference CSV read from an upload


@dataclass(frozen=True)
class ReferenceUnit:
    """One row of their table: a request unit and their decision."""

    row: int  # the row in the file (the header is row 1)
    source_file: str
    step: int
    speaker: int
    target: int
    action: str
    object: str
    location: str
    text: str
    label: str  # our outcome name of their label
    matched_action: str = ""
    matched_step: int | None = None
    validator_errors: int = 0

    def reason(self) -> str:
        """Their decision in words, from their row's evidence."""
        who = _role(self.target)
        if self.label in (EFFECTIVE, ASSISTED) and self.matched_step is not None:
            done = f"{who} completed {self.matched_action} at step {self.matched_step}"
            if self.label == ASSISTED:
                return f"{done}, with {self.validator_errors} validator error(s) of {who} after the message"
            return f"{done}, within their window, with no validator error between"
        if self.label == REDUNDANT and self.matched_step is not None:
            if self.matched_step <= self.step:
                return (
                    f"{who} had completed {self.matched_action} at step {self.matched_step}, at or before the message"
                )
            return (
                f"{who}'s {self.matched_action} at step {self.matched_step} was already credited to an earlier "
                "request (their one-completion-one-request rule)"
            )
        if self.label == INEFFECTIVE:
            return f"no matching action of {who} after the message within their window"
        return f"{self.label} (their row gives no matched action)"


def _role(agent: int) -> str:
    return ROLES[agent] if agent in (0, 1) else f"agent {agent}"


# -- reading their table -------------------------------------------------------------------------


def read_csv_bytes(data: bytes, name: str) -> tuple[pd.DataFrame | None, Report]:
    """Their CSV as text columns, or None with the problem (file too big, not text, not a CSV)."""
    report = Report()
    if len(data) > MAX_BYTES:
        report.add(name, "-", "(file)", f"is {len(data):,} bytes; a reference audit file is at most {MAX_BYTES:,}")
        return None, report
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        report.add(name, "-", "(file)", f"not UTF-8 text (byte {exc.start})")
        return None, report
    if not text.strip():
        report.add(name, "-", "(file)", "empty: expected a CSV with a header row")
        return None, report
    try:
        frame = pd.read_csv(io.StringIO(text), dtype=str, keep_default_na=False)
    except (ValueError, pd.errors.ParserError) as exc:
        report.add(name, "-", "(file)", f"cannot be read as CSV: {str(exc).splitlines()[0]}")
        return None, report
    return frame, report


def _int(value: str) -> int | None:
    v = value.strip()
    if re.fullmatch(r"-?\d+", v):
        return int(v)
    if re.fullmatch(r"-?\d+\.0*", v):
        return int(float(v))
    return None


def read_reference(frame: pd.DataFrame, name: str) -> tuple[list[ReferenceUnit], Report]:
    """Every row of their table checked: the required columns present, the step and the agents whole
    numbers (agents 0 or 1), the action named, the label one of theirs. A problem names the file, the
    row and the field; rows with a problem are left out (the caller refuses the file when any is)."""
    report = Report()
    missing = [c for c in REQUIRED if c not in frame.columns]
    if missing:
        report.add(name, "header", missing[0], f"missing column (a TGCO request-unit table has {', '.join(REQUIRED)})")
        return [], report
    out = []
    for k, row in enumerate(frame.to_dict("records")):
        where = f"row {k + 2}"
        start = report.error_count
        step = _int(str(row["message_timestep"]))
        if step is None or step < 0:
            report.add(
                name, where, "message_timestep", f"expected a step (0 or more), got {describe(row['message_timestep'])}"
            )
        agents = {}
        for col in ("speaker", "target_agent"):
            v = _int(str(row[col]))
            if v not in (0, 1):
                report.add(name, where, col, f"expected 0 (Chef) or 1 (Assistant), got {describe(row[col])}")
            agents[col] = v
        action = str(row["request_action"]).strip()
        if not action:
            report.add(name, where, "request_action", "empty: expected the requested action (pickup, ...)")
        label = str(row["tgco_label"]).strip().capitalize()
        if label not in LABELS:
            report.add(
                name, where, "tgco_label", f"expected one of {', '.join(LABELS)}, got {describe(row['tgco_label'])}"
            )
        source = str(row["source_file"]).strip()
        if not source:
            report.add(name, where, "source_file", "empty: expected the run's file")
        if report.error_count > start:
            continue
        matched = _int(str(row.get("matched_action_timestep", "")))
        errors = _int(str(row.get("validator_errors_between", ""))) or 0
        assert step is not None
        out.append(
            ReferenceUnit(
                row=k + 2,
                source_file=source,
                step=step,
                speaker=int(agents["speaker"] or 0),
                target=int(agents["target_agent"] or 0),
                action=action,
                object=normalize_arg(str(row["request_object"])),
                location=normalize_arg(str(row.get("request_location", ""))),
                text=str(row.get("request_text", "")),
                label=LABELS[label],
                matched_action=str(row.get("matched_action", "")),
                matched_step=matched,
                validator_errors=errors,
            )
        )
    return out, report


# -- matching ------------------------------------------------------------------------------------


def _parts(path: str) -> tuple[str, ...]:
    return tuple(p for p in PurePosixPath(path.replace("\\", "/")).parts if p not in ("", "/", "."))


def run_of(source_file: str, runs: Sequence[KitchenRun]) -> KitchenRun | None:
    """The run a row's ``source_file`` names (the module's rule), or None."""
    theirs = _parts(source_file)
    found = [r for r in runs if (mine := _parts(r.source)) and theirs[-len(mine) :] == mine]
    if len(found) == 1:
        return found[0]
    by_name = [r for r in runs if _parts(r.source)[-1:] == theirs[-1:]]
    return by_name[0] if len(by_name) == 1 else None


def related(a: str, b: str) -> bool:
    """Objects that may be the same request's: equal, either unnamed, or one's words inside the
    other's (``potato`` and ``potato_slices``)."""
    if a == b or not a or not b:
        return True
    wa, wb = a.split("_"), b.split("_")
    return _inside(wa, wb) or _inside(wb, wa)


def _inside(part: list[str], whole: list[str]) -> bool:
    k = len(part)
    return any(whole[i : i + k] == part for i in range(len(whole) - k + 1))


def _squeeze(text: str) -> str:
    return " ".join(text.split())


def _said(run: KitchenRun, u: UnitOutcome) -> str:
    """The say of the turn a unit was read from, as their table writes a unit's message."""
    turn = run.turns[u.unit.turn] if 0 <= u.unit.turn < len(run.turns) else None
    return _squeeze(clean_message(turn.say)) if turn is not None else ""


def _verb(u: UnitOutcome) -> str:
    return u.unit.action.verb if isinstance(u.unit.action, OpAction) else ""


@dataclass(frozen=True)
class Pair:
    """A unit of ours and the same unit of theirs."""

    run_id: str
    ours: UnitOutcome
    theirs: ReferenceUnit
    how: str  # which pass matched them: "same message, same object", ..., "related object"

    @property
    def agree(self) -> bool:
        return self.ours.outcome == self.theirs.label


@dataclass(frozen=True)
class ReferenceAgreement:
    """Our audit against theirs on the runs both cover."""

    pairs: tuple[Pair, ...]
    only_ours: tuple[tuple[str, UnitOutcome], ...]  # (run id, unit)
    only_theirs: tuple[tuple[str, ReferenceUnit], ...]
    other_runs: dict[str, int]  # their rows of runs not among ours: source file -> rows
    runs: tuple[str, ...]  # our runs they cover
    kappa: Estimate
    windows: tuple[str, ...]  # the window rule(s) our audit used

    @property
    def matched(self) -> int:
        return len(self.pairs)

    @property
    def agreeing(self) -> int:
        return sum(p.agree for p in self.pairs)

    def confusion(self) -> pd.DataFrame:
        """Ours (rows) against theirs (columns), every outcome in both, counts of matched units."""
        t = pd.DataFrame(0, index=list(OUTCOMES), columns=list(OUTCOMES))
        for p in self.pairs:
            t.loc[p.ours.outcome, p.theirs.label] += 1
        t.index.name, t.columns.name = "ours", "theirs"
        return t

    def disagreements(self) -> pd.DataFrame:
        """Every matched unit the audits decide differently: where, what, both decisions and why."""
        rows = [_row(p) for p in self.pairs if not p.agree]
        return pd.DataFrame(rows, columns=DISAGREEMENT_COLUMNS)

    def only_ours_frame(self) -> pd.DataFrame:
        rows = [
            {
                "run": run,
                "step": u.unit.step,
                "sender": _role(u.unit.sender),
                "request": _request(u),
                "object": u.unit.object,
                "shape": u.unit.shape,
                "ours": u.outcome,
                "said": u.unit.text,
            }
            for run, u in self.only_ours
        ]
        return pd.DataFrame(rows, columns=["run", "step", "sender", "request", "object", "shape", "ours", "said"])

    def only_theirs_frame(self) -> pd.DataFrame:
        rows = [
            {
                "run": run,
                "row": t.row,
                "step": t.step,
                "sender": _role(t.speaker),
                "request": t.action,
                "object": t.object,
                "theirs": t.label,
                "said": t.text,
            }
            for run, t in self.only_theirs
        ]
        return pd.DataFrame(rows, columns=["run", "row", "step", "sender", "request", "object", "theirs", "said"])

    def summary(self) -> str:
        k = self.kappa
        lines = [
            f"Reference audit: {self.matched} request unit(s) matched on {len(self.runs)} run(s); "
            f"{len(self.only_ours)} only ours, {len(self.only_theirs)} only theirs"
            + (
                f"; {sum(self.other_runs.values())} row(s) of {len(self.other_runs)} run(s) not given"
                if self.other_runs
                else ""
            ),
            f"Agreement on the matched: {self.agreeing} of {self.matched}",
            k.summary(),
            "Confusion (ours in rows, theirs in columns):",
            self.confusion().to_string(),
        ]
        return "\n".join(lines)

    def to_json(self) -> dict[str, Any]:
        k = self.kappa
        return {
            "matched": self.matched,
            "agreeing": self.agreeing,
            "only_ours": len(self.only_ours),
            "only_theirs": len(self.only_theirs),
            "runs": list(self.runs),
            "rows_of_other_runs": dict(self.other_runs),
            "kappa": k.estimate,
            "kappa_interval": k.interval,
            "kappa_se": k.se,
            "kappa_detail": k.to_json(),
            "percent_agreement": self.agreeing / self.matched if self.matched else Undefined("no unit matched"),
            "confusion": {o: {t: int(v) for t, v in row.items()} for o, row in self.confusion().iterrows()},
            "window": list(self.windows),
            "disagreements": self.disagreements().to_dict(orient="records"),
            "only_ours_units": self.only_ours_frame().to_dict(orient="records"),
            "only_theirs_units": self.only_theirs_frame().to_dict(orient="records"),
        }


DISAGREEMENT_COLUMNS = [
    "run",
    "step",
    "sender",
    "request",
    "object",
    "ours",
    "theirs",
    "why ours",
    "our check",
    "why theirs",
    "rule that differs",
    "said",
]


def _request(u: UnitOutcome) -> str:
    return str(u.unit.action) if isinstance(u.unit.action, OpAction) else u.unit.text


def _row(p: Pair) -> dict[str, Any]:
    u = p.ours
    return {
        "run": p.run_id,
        "step": u.unit.step,
        "sender": _role(u.unit.sender),
        "request": _request(u),
        "object": u.unit.object or p.theirs.object,
        "ours": u.outcome,
        "theirs": p.theirs.label,
        "why ours": u.reason,
        "our check": u.stage,
        "why theirs": p.theirs.reason(),
        "rule that differs": difference(p),
        "said": p.theirs.text or u.unit.text,
    }


def difference(p: Pair) -> str:
    """The rule of theirs that departs from Appendix C and explains a disagreement, where one does."""
    ours, theirs = p.ours, p.theirs
    t, m = theirs.step, theirs.matched_step
    if theirs.label == REDUNDANT and m is not None and m > t and ours.outcome in (EFFECTIVE, ASSISTED):
        return "one completion, one request: theirs credits the partner's action to an earlier request"
    if ours.outcome == REDUNDANT and theirs.label != REDUNDANT:
        return "redundancy: ours counts a completion by either agent before the message, theirs the target's only"
    if ours.stage == "relevance":
        return "relevance: ours checks the request against the recipe and the kitchen, theirs does not"
    if ours.stage in ("target", "parse"):
        return "target or form: ours checks who is asked and that the action is one, theirs assumes the partner"
    if ours.unit.object != theirs.object and theirs.label == INEFFECTIVE and theirs.matched_step is None:
        return (
            f"object: theirs reads '{theirs.object or 'nothing'}' from the message, ours "
            f"'{ours.unit.object or 'nothing'}', so theirs finds no matching action"
        )
    if {ours.outcome, theirs.label} == {EFFECTIVE, ASSISTED}:
        return "validator: ours counts corrections in [t, m), theirs validator errors in (t, m]"
    if INEFFECTIVE in (ours.outcome, theirs.label) and ours.stage in ("trace", "validator"):
        return f"window: ours looks in [t, t + w] (the audit's window), theirs in (t, t + {THEIR_WINDOW}]"
    return ""


def _by_run(
    reference: Sequence[ReferenceUnit], runs: Sequence[KitchenRun]
) -> tuple[dict[str, list[ReferenceUnit]], dict[str, int]]:
    """Their units by the run each names (:func:`run_of`), and how many units name each source file
    that is none of ``runs``."""
    theirs_by_run: dict[str, list[ReferenceUnit]] = {}
    other: dict[str, int] = {}
    for t in reference:
        run = run_of(t.source_file, runs)
        if run is None:
            other[t.source_file] = other.get(t.source_file, 0) + 1
        else:
            theirs_by_run.setdefault(run.id, []).append(t)
    return theirs_by_run, other


def _match_run(
    run: KitchenRun, mine: Sequence[UnitOutcome], theirs: Sequence[ReferenceUnit]
) -> tuple[dict[int, tuple[ReferenceUnit, str]], list[ReferenceUnit]]:
    """Our units of one run matched to theirs, pass after pass (the module's rules): the index of each
    matched unit of ours -> (their unit, how it matched); with their units left unmatched."""
    left = list(theirs)
    said = [_said(run, u) for u in mine]
    taken: dict[int, tuple[ReferenceUnit, str]] = {}
    passes = (
        ("same message, same object", True, lambda a, b: a == b),
        ("same message, related object", True, related),
        ("same object", False, lambda a, b: a == b),
        ("related object", False, related),
    )
    for how, same_message, same in passes:
        for k, u in enumerate(mine):
            if k in taken:
                continue
            found = next(
                (
                    t
                    for t in left
                    if (t.step, t.speaker, t.action) == (u.unit.step, u.unit.sender, _verb(u))
                    and same(u.unit.object, t.object)
                    and (not same_message or _squeeze(t.text) == said[k])
                ),
                None,
            )
            if found is not None:
                left.remove(found)
                taken[k] = (found, how)
    return taken, left


def compare(
    audits: Iterable[tuple[KitchenRun, Sequence[UnitOutcome]]],
    reference: Sequence[ReferenceUnit],
    *,
    windows: Sequence[str] = (),
    confidence: float = CONFIDENCE,
) -> ReferenceAgreement:
    """Our units (each run with its audited units) against their table (the module's rules)."""
    audits = list(audits)
    runs = [r for r, _ in audits]
    units = {r.id: list(us) for r, us in audits}
    theirs_by_run, other = _by_run(reference, runs)
    pairs: list[Pair] = []
    only_ours: list[tuple[str, UnitOutcome]] = []
    only_theirs: list[tuple[str, ReferenceUnit]] = []
    covered = tuple(r.id for r in runs if r.id in theirs_by_run)
    by_id = {r.id: r for r in runs}
    for run_id in covered:
        taken, left = _match_run(by_id[run_id], units[run_id], theirs_by_run[run_id])
        for k, u in enumerate(units[run_id]):
            if k in taken:
                pairs.append(Pair(run_id, u, *taken[k]))
            else:
                only_ours.append((run_id, u))
        only_theirs += [(run_id, t) for t in left]
    return ReferenceAgreement(
        tuple(pairs),
        tuple(only_ours),
        tuple(only_theirs),
        other,
        covered,
        cohen_kappa([p.ours.outcome for p in pairs], [p.theirs.label for p in pairs], confidence),
        tuple(windows),
    )


def cohen_kappa(ours: Sequence[str], theirs: Sequence[str], confidence: float = CONFIDENCE) -> Estimate:
    """Cohen's kappa of our outcomes against theirs over the four outcomes, with the asymptotic
    standard error and its normal interval (``statsmodels.stats.inter_rater.cohens_kappa``)."""
    from statsmodels.stats.inter_rater import cohens_kappa

    base: dict[str, Any] = dict(
        key="cohen_kappa",
        statistic="Cohen's kappa, this audit against the authors'",
        n=len(ours),
        n_of="request units both audits found",
        method="Cohen (1960) kappa over Effective / Assisted / Redundant / Ineffective",
        computed_by="statsmodels.stats.inter_rater.cohens_kappa",
        package="statsmodels",
        checked_against="sklearn.metrics.cohen_kappa_score",
        interval_method="asymptotic standard error (ASE) of kappa, normal interval",
        confidence=confidence,
    )
    if not ours:
        return Estimate.undefined("no request unit was found by both audits", **base)
    table = np.zeros((len(OUTCOMES), len(OUTCOMES)))
    for a, b in zip(ours, theirs):
        table[OUTCOMES.index(a), OUTCOMES.index(b)] += 1
    n = table.sum()
    p_e = float((table.sum(axis=1) @ table.sum(axis=0)) / (n * n))
    if p_e >= 1 - 1e-12:
        return Estimate.undefined("both audits gave one and the same outcome to every matched unit", **base)
    res = cohens_kappa(table)
    kappa, se = float(res["kappa"]), float(res["std_kappa"])
    if abs(confidence - 0.95) < 1e-12:  # statsmodels' own interval (it is computed at 95 %)
        interval = (float(res["kappa_low"]), float(res["kappa_upp"]))
    else:
        z = float(stats.norm.ppf(1 - (1 - confidence) / 2))
        interval = (kappa - z * se, kappa + z * se)
    warnings = []
    if len(ours) < MIN_UNITS:
        warnings.append(few_units(len(ours), "matched units"))
    if interval[1] - interval[0] <= 0:
        warnings.append("zero-width interval: the asymptotic standard error is 0")
    return Estimate(**base, estimate=kappa, se=se, interval=interval, warnings=tuple(warnings))


__all__ = [
    "REQUIRED",
    "ReferenceUnit",
    "ReferenceAgreement",
    "Pair",
    "read_csv_bytes",
    "read_reference",
    "run_of",
    "related",
    "compare",
    "cohen_kappa",
    "difference",
]
