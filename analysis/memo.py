"""What a results object computes on first request and keeps: one value per key, computed once even
when two sessions ask at the same time (the objects are shared across sessions by the services'
caches)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Memo:
    values: dict = field(default_factory=dict)
    lock: threading.RLock = field(default_factory=threading.RLock)

    def once(self, key: tuple, make: Callable[[], Any]) -> Any:
        """The value kept under ``key``, made by ``make`` the first time."""
        with self.lock:
            if key not in self.values:
                self.values[key] = make()
            return self.values[key]

    def put(self, key: tuple, value: Any) -> None:
        """Keep ``value`` under ``key`` unless one is kept there already (made elsewhere, e.g. on
        another thread, and handed in)."""
        with self.lock:
            self.values.setdefault(key, value)
