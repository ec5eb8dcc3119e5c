"""The selection every analysis page applies to every chart: actor role, condition, split, sessions.

An empty tuple means "all". :meth:`Filters.key` is hashable (a cache key), and
:meth:`Filters.describe` is the sentence printed under each chart.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from corpus import schema


@dataclass(frozen=True)
class Filters:
    roles: tuple[str, ...] = ()
    conditions: tuple[str, ...] = ()
    splits: tuple[str, ...] = ()
    sessions: tuple[str, ...] = ()

    def key(self) -> tuple:
        return (
            tuple(sorted(self.roles)),
            tuple(sorted(self.conditions)),
            tuple(sorted(self.splits)),
            tuple(sorted(self.sessions)),
        )

    def sessions_mask(self, sessions: pd.DataFrame) -> pd.Series:
        """Which rows of a per-session table (session_id, condition, split) are selected."""
        keep = pd.Series(True, index=sessions.index)
        if self.conditions:
            keep &= sessions["condition"].astype(str).isin(self.conditions)
        if self.splits:
            keep &= sessions["split"].astype(str).isin(self.splits)
        if self.sessions:
            keep &= sessions["session_id"].astype(str).isin(self.sessions)
        return keep

    def apply(self, actions: pd.DataFrame, roles: bool = True) -> pd.DataFrame:
        """The selected rows of a per-action table; ``roles=False`` keeps both roles (an analysis of
        the pair, such as dyadic alignment)."""
        keep = self.sessions_mask(actions)
        if roles and self.roles:
            keep &= actions["role"].astype(str).isin(self.roles)
        return actions[keep]

    def describe(self, roles: bool = True) -> str:
        def part(values: tuple[str, ...], every: str, noun: str) -> str:
            return every if not values else f"{noun} {', '.join(sorted(v.replace('_', ' ') for v in values))}"

        bits = []
        if roles:
            bits.append(part(self.roles if set(self.roles) != set(schema.ROLES) else (), "both roles", "role"))
        else:
            bits.append("both roles (the role filter does not apply)")
        bits.append(
            part(
                self.conditions if set(self.conditions) != set(schema.CONDITIONS) else (),
                "both conditions",
                "condition",
            )
        )
        bits.append(part(self.splits if set(self.splits) != set(schema.SPLITS) else (), "every split", "split"))
        if self.sessions:
            shown = sorted(self.sessions)
            bits.append(f"{len(shown)} session(s): {', '.join(shown[:8])}{' ...' if len(shown) > 8 else ''}")
        else:
            bits.append("all sessions")
        return "; ".join(bits)
