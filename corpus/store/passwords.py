"""Password hashes: Argon2id for every new password; PBKDF2-SHA256 hashes from earlier versions
still verify and are replaced by Argon2id at the next successful sign-in."""

from __future__ import annotations

import functools
import hashlib
import hmac

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

MIN_LENGTH = 8
PBKDF2_PREFIX = "pbkdf2_sha256$"

# OWASP's Password Storage Cheat Sheet settings for Argon2id: 19 MiB, 2 passes, 1 lane (about 30 ms
# here). Hashes made with other settings verify, and are re-hashed at the next successful sign-in.
_hasher = PasswordHasher(time_cost=2, memory_cost=19 * 1024, parallelism=1)


def hash_password(password: str) -> str:
    return _hasher.hash(password)


def verify_password(password: str, stored: str | None) -> bool:
    """Whether ``password`` matches the stored hash (Argon2id, or a legacy PBKDF2 hash)."""
    if not stored:
        return False
    if stored.startswith(PBKDF2_PREFIX):
        return _verify_pbkdf2(password, stored)
    try:
        return _hasher.verify(stored, password)
    except (VerificationError, InvalidHashError):
        return False


def needs_upgrade(stored: str | None) -> bool:
    """A hash that should be replaced on the next successful sign-in (PBKDF2, or weaker Argon2 settings)."""
    if not stored:
        return False
    if stored.startswith(PBKDF2_PREFIX):
        return True
    try:
        return _hasher.check_needs_rehash(stored)
    except InvalidHashError:
        return True


def spend_like_a_check(password: str) -> None:
    """Verify against a throwaway hash, so a sign-in with an unknown username takes as long as one
    with a known username (the time taken must not tell whether an account exists)."""
    verify_password(password, _dummy_hash())


@functools.cache
def _dummy_hash() -> str:
    return _hasher.hash("not a password anyone has")


def _verify_pbkdf2(password: str, stored: str) -> bool:
    try:
        _algo, iterations, salt, digest = stored.split("$")
        check = hashlib.pbkdf2_hmac("sha256", password.encode("utf-8"), bytes.fromhex(salt), int(iterations))
    except ValueError:
        return False
    return hmac.compare_digest(check.hex(), digest)
