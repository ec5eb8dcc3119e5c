"""How a number that has no value is said, everywhere in the tool.

A statistic or a task metric that cannot be computed on the data at hand (accuracy of an empty
drawing, kappa when every label is the same category, a model with too few sessions) is an
:class:`Undefined` carrying the reason. It is never 0, NaN, ``None`` or a bare string: code that
reads a value asks :func:`is_defined`, and whoever prints it says why it is missing
(``str(Undefined("no drawing")) == "undefined, because no drawing"``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Undefined:
    """A value that does not exist on the data, and why."""

    reason: str

    def __str__(self) -> str:
        return f"undefined, because {self.reason}"

    def to_json(self) -> dict[str, str]:
        return {"undefined": self.reason}


def is_defined(value: Any) -> bool:
    """True for a real value; False for :class:`Undefined` and for ``None``."""
    return value is not None and not isinstance(value, Undefined)


def from_json(value: Any) -> Any:
    """The inverse of ``Undefined.to_json`` for a value read back from JSON."""
    if isinstance(value, dict) and set(value) == {"undefined"}:
        return Undefined(str(value["undefined"]))
    return value
