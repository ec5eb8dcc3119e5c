"""Who took part: a participant's persona in words and their TeamQ profile.

Pure computation (no streamlit). TeamQ (Appendix C of the ALMANAC paper) has 14 items, each
scored 0 (Never) to 4 (Always), grouped into nine dimensions (:data:`corpus.schema.TEAMQ_ITEMS`);
the profile is the mean score per dimension, in the instrument's order, and over all items.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from corpus import schema
from corpus.model import Participant
from corpus.values import Undefined

ROLE_TITLES = {"guide": "Guide", "follower": "Follower"}


@dataclass(frozen=True)
class TeamQItem:
    dimension: str
    text: str
    score: int

    @property
    def answer(self) -> str:
        return schema.TEAMQ_SCALE[self.score]


@dataclass(frozen=True)
class TeamQProfile:
    items: tuple[TeamQItem, ...]
    dimensions: tuple[tuple[str, float], ...]  # (dimension, mean score), in the instrument's order
    mean: float  # over the 14 items


def teamq_profile(scores: list[int] | None) -> TeamQProfile | Undefined:
    """The TeamQ profile of one participant's 14 answers, or Undefined without answers."""
    if not scores:
        return Undefined("no TeamQ answers in the data")
    if len(scores) != len(schema.TEAMQ_ITEMS):
        return Undefined(f"{len(scores)} TeamQ answers; the instrument has {len(schema.TEAMQ_ITEMS)}")
    items = tuple(TeamQItem(dim, text, int(s)) for (dim, text), s in zip(schema.TEAMQ_ITEMS, scores))
    order = list(dict.fromkeys(i.dimension for i in items))
    dims = tuple((d, float(np.mean([i.score for i in items if i.dimension == d]))) for d in order)
    return TeamQProfile(items=items, dimensions=dims, mean=float(np.mean([i.score for i in items])))


def persona_words(participant: Participant) -> list[str]:
    """The persona fields the data gives (gender, age group, education), in that order."""
    p = participant.persona
    return [v for v in (p.gender, p.age_group, p.education) if v]
