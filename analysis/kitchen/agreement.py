"""The TGCO rule as a coder: its codes of the request units set against people's codes of the same
units, with the statistics any coder gets (:mod:`analysis.agreement`).

People code request units with the TGCO codebook (``corpus/codebooks/tgco.yaml``: effective,
assisted, redundant, ineffective) in a CSV of ``run_id, turn, unit, coder, code``, the unit named as
``python -m analysis kitchen SOURCE --units --csv`` lists it. The automatic coder (:data:`RULE`, a
model coder) gives each unit the outcome the audit found. Reported: the people's agreement among
themselves (Fleiss' kappa, Krippendorff's alpha, with intervals), the rule's Cohen's kappa against
the people's majority, and against each person.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pandas as pd

from analysis import agreement as ag
from corpus.loading.report import Report, describe

RULE = "tgco_rule"  # the automatic coder's name
KEYS = ("run_id", "turn", "unit")
COLUMNS = (*KEYS, "coder", "code")


@dataclass(frozen=True)
class RuleAgreement:
    people: ag.AgreementReport | None  # None with one person only
    against_majority: ag.GoldComparison
    against_each: dict[str, ag.GoldComparison]
    n_units: int
    coders: list[str]

    def to_json(self) -> dict[str, Any]:
        return {
            "units": self.n_units,
            "coders": self.coders,
            "rule": RULE,
            "people": self.people.to_json() if self.people is not None else None,
            "rule_vs_majority": {
                "cohen_kappa": self.against_majority.cohen.to_json(),
                "percent_agreement": self.against_majority.percent_agreement.to_json(),
                "gold": self.against_majority.gold,
            },
            "rule_vs_each": {c: g.cohen.to_json() for c, g in self.against_each.items()},
        }


def read_codes(frame: pd.DataFrame, units: pd.DataFrame, codes: list[str], rel: str) -> tuple[pd.DataFrame, Report]:
    """People's codes checked row by row (file, row, field): the unit must be one of ``units``
    (run_id, turn, unit) and the code one of ``codes``; rows with a problem are left out."""
    report = Report()
    missing = [c for c in COLUMNS if c not in frame.columns]
    if missing:
        report.add(rel, "header", missing[0], f"missing column (expected {', '.join(COLUMNS)})")
        return pd.DataFrame(columns=list(COLUMNS)), report
    known = {(str(r), int(t), int(u)) for r, t, u in zip(units["run_id"], units["turn"], units["unit"])}
    keep = []
    for k, row in enumerate(frame.to_dict("records")):
        where = f"row {k + 2}"
        try:
            key = (str(row["run_id"]), int(row["turn"]), int(row["unit"]))
        except (TypeError, ValueError):
            report.add(rel, where, "turn", f"expected whole numbers for turn and unit, got {describe(row['turn'])}")
            continue
        if key not in known:
            report.add(rel, where, "unit", f"no such request unit: {key[0]} turn {key[1]} unit {key[2]}")
            continue
        if str(row["code"]) not in codes:
            report.add(rel, where, "code", f"expected one of {', '.join(codes)}, got {describe(row['code'])}")
            continue
        if not str(row["coder"]).strip() or str(row["coder"]) == RULE:
            report.add(rel, where, "coder", f"a person's name, not {describe(row['coder'])}")
            continue
        keep.append({**dict(zip(KEYS, key)), "coder": str(row["coder"]), "code": str(row["code"])})
    return pd.DataFrame(keep, columns=list(COLUMNS)), report


def rule_agreement(units: pd.DataFrame, people: pd.DataFrame, codes: list[str]) -> RuleAgreement:
    """The rule's codes (``units``' outcome) against ``people``'s (see :func:`read_codes`), on the
    units people coded."""
    item = lambda d: d["run_id"].astype(str) + ":" + d["turn"].astype(str) + ":" + d["unit"].astype(str)  # noqa: E731
    coded = set(item(people))
    rule = units.assign(item=item(units))
    rule = rule[rule["item"].isin(coded)]
    long = pd.concat(
        [
            people.assign(item=item(people))[["item", "coder", "code"]],
            pd.DataFrame({"item": rule["item"], "coder": RULE, "code": rule["outcome"].astype(str)}),
        ],
        ignore_index=True,
    )
    table = ag.LabelTable(long, item="item", coder="coder", label="code", categories=codes)
    humans = sorted(people["coder"].unique())
    report = ag.report(table, exclude_coders=[RULE]) if len(humans) >= 2 else None
    return RuleAgreement(
        people=report,
        against_majority=ag.coder_vs_gold(table, RULE, "majority"),
        against_each={h: ag.coder_vs_gold(table, RULE, h) for h in humans},
        n_units=len(coded),
        coders=humans,
    )
