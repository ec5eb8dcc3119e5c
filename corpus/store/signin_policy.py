"""The sign-in policy (free attempts, alarms, proof levels, lifetimes) and the proof of work an
unknown device brings past the free attempts (:mod:`corpus.store.signin` tells how they are used)."""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass
from datetime import timedelta


@dataclass(frozen=True)
class SignInPolicy:
    free_attempts: int = 5
    forget_after: timedelta = timedelta(hours=1)
    account_alarm: int = 10  # failures on one name from unknown devices, from any clients, within forget_after
    client_alarm: int = 5  # different names one client failed on within forget_after
    device_ttl: timedelta = timedelta(days=180)
    device_free_failures: int = 5  # a known device's failures in a row before it counts as unknown
    proof_first_bits: int = 20  # the first level's proof: about 2**20 hashes, a second or two of a browser's time
    proof_max_level: int = 6  # about 2**25 hashes, half a minute
    proof_ttl: timedelta = timedelta(minutes=10)
    password_change_wait: timedelta = timedelta(seconds=30)  # after free_attempts wrong current passwords
    password_change_lockout: timedelta = timedelta(minutes=15)
    token_ttl: timedelta = timedelta(hours=12)
    keep_failures: timedelta = timedelta(days=30)
    max_failures_kept: int = 100_000

    def proof_bits(self, level: int) -> int:
        """The leading zero bits a proof of ``level`` (1 or more) needs: each level doubles the work."""
        return self.proof_first_bits + min(max(level, 1), self.proof_max_level) - 1

    def level_after(self, failures: int, free: int | None = None) -> int:
        """The proof level of a pair after ``failures`` failures in a row, the first ``free`` (default:
        :attr:`free_attempts`) of them free (0: no proof needed)."""
        free = self.free_attempts if free is None else free
        return 0 if failures < free else min(failures - free + 1, self.proof_max_level)

    def account_level(self, failures: int) -> int:
        """The proof level every unknown device needs on a name that failed ``failures`` times from
        unknown devices in the window: 1 at the alarm, one more each time they double."""
        if failures < self.account_alarm:
            return 0
        return min(1 + int(math.log2(failures / self.account_alarm)), self.proof_max_level)

    def password_change_wait_after(self, failures: int) -> timedelta:
        """How long an account waits to change its password after ``failures`` wrong current
        passwords in a row (the first :attr:`free_attempts` free), doubling up to the lockout."""
        if failures < self.free_attempts:
            return timedelta(0)
        return min(
            self.password_change_wait * 2 ** min(failures - self.free_attempts, 30), self.password_change_lockout
        )


def proof_holds(challenge: str, counter: int, bits: int) -> bool:
    """Whether SHA-256 of ``"<challenge>:<counter>"`` (ASCII) starts with ``bits`` zero bits."""
    digest = hashlib.sha256(f"{challenge}:{counter}".encode("ascii")).digest()
    return int.from_bytes(digest, "big") >> (256 - bits) == 0 if 0 < bits <= 256 else bits == 0


def solve_proof(challenge: str, bits: int) -> int:
    """The first counter that makes a proof of ``challenge`` hold (what the browser computes; for the
    command line and tests)."""
    counter = 0
    while not proof_holds(challenge, counter, bits):
        counter += 1
    return counter
