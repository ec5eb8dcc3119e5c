"""Undo and redo of the editor's edits: a list of whole drafts and a position in it."""

from __future__ import annotations

from dataclasses import dataclass, field

from corpus.mapedit.draft import Draft

MAX_STEPS = 300  # the oldest edits are forgotten past this many


@dataclass
class History:
    """Each entry is (what the edit was, the draft after it); ``pos`` is the current entry."""

    entries: list[tuple[str, Draft]] = field(default_factory=list)
    pos: int = -1

    @classmethod
    def starting(cls, draft: Draft, label: str = "new map") -> History:
        return cls(entries=[(label, draft)], pos=0)

    @property
    def current(self) -> Draft:
        return self.entries[self.pos][1]

    def push(self, draft: Draft, label: str) -> None:
        """Record an edit; the edits that were undone cannot be redone any more."""
        if self.entries and draft == self.current:
            return
        del self.entries[self.pos + 1 :]
        self.entries.append((label, draft))
        if len(self.entries) > MAX_STEPS:
            del self.entries[: len(self.entries) - MAX_STEPS]
        self.pos = len(self.entries) - 1

    @property
    def can_undo(self) -> bool:
        return self.pos > 0

    @property
    def can_redo(self) -> bool:
        return self.pos < len(self.entries) - 1

    @property
    def undo_label(self) -> str:
        return self.entries[self.pos][0] if self.can_undo else ""

    @property
    def redo_label(self) -> str:
        return self.entries[self.pos + 1][0] if self.can_redo else ""

    def undo(self) -> Draft:
        if self.can_undo:
            self.pos -= 1
        return self.current

    def redo(self) -> Draft:
        if self.can_redo:
            self.pos += 1
        return self.current
