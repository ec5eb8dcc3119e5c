"""Signing in: password checks behind a backoff, and signed, expiring sign-in tokens.

**Backoff.** Failed sign-ins are counted per account name and per client (the address the app
passes). The first :attr:`SignInPolicy.free_attempts` failures in a row cost nothing; each one
after that locks the name (or the client) for a wait that doubles from
:attr:`SignInPolicy.first_wait` up to :attr:`SignInPolicy.lockout`, the lockout window. While
locked, every attempt is refused without looking at the password, the right one included. A
success clears the account's count (not the client's); failures older than
:attr:`SignInPolicy.forget_after` are forgotten.
Names that belong to no account are counted like any other, and every refusal says the same
words whether the account exists or not (an unknown name also costs the same hashing time).
Failures and locks are logged (logger ``groundwork.signin``).

**Tokens.** :meth:`SignIn.issue_token` gives a signed-in user a token the app may keep in a
cookie: ``<user id>.<epoch>.<expiry>.<HMAC-SHA256 signature>``, signed with a random server secret
kept in the database's settings table. It is valid until it expires and while the account is
active with the same epoch: changing or resetting the password, disabling or deleting the
account raises the epoch and voids every token issued before. :meth:`SignIn.revoke_token` voids one
token (its browser signed out): a copy of it taken before is refused from then on. A revoked token is
remembered until it would have expired, and only a token the server signed is remembered.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import hmac
import logging
import math
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta

import sqlalchemy as sa

from corpus.store import passwords
from corpus.store.base import AccessDenied, StoreBase, User, as_utc, user_from_row
from corpus.store.engine import dialect_insert
from corpus.store.tables import revoked_tokens, settings, signin_throttle, users

log = logging.getLogger("groundwork.signin")

WRONG = "Unknown username or wrong password."


class SignInRefused(AccessDenied):
    """A refused sign-in; the message never says whether the account exists."""


@dataclass(frozen=True)
class SignInPolicy:
    free_attempts: int = 5
    first_wait: timedelta = timedelta(seconds=30)
    lockout: timedelta = timedelta(minutes=15)
    forget_after: timedelta = timedelta(hours=1)
    token_ttl: timedelta = timedelta(hours=12)

    def wait_after(self, failures: int) -> timedelta:
        """How long a name or client is locked after ``failures`` failures in a row."""
        if failures < self.free_attempts:
            return timedelta(0)
        return min(self.first_wait * 2 ** min(failures - self.free_attempts, 30), self.lockout)


def _locked_message(wait: timedelta) -> str:
    seconds = max(1, math.ceil(wait.total_seconds()))
    when = f"{seconds} second{'s' * (seconds != 1)}" if seconds < 120 else f"{math.ceil(seconds / 60)} minutes"
    return f"Too many failed sign-ins. Try again in {when}."


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


class SignIn(StoreBase):
    policy: SignInPolicy = SignInPolicy()

    def sign_in(self, username: str, password: str, client: str | None = None) -> User:
        """The user, or :class:`SignInRefused` (wrong or unknown, or locked out for a while)."""
        name = (username or "").strip()
        keys = [f"account:{name.lower()}"[:200]] + ([f"client:{client}"[:200]] if client else [])
        now = self._now()
        wait = self._locked_for(keys, now)
        if wait:
            log.warning("sign-in refused while locked: account %r, client %s", name, client or "-")
            raise SignInRefused(_locked_message(wait))
        with self._read() as c:
            r = c.execute(sa.select(users).where(users.c.username == name)).first()
        if r is None or not r.password_hash:
            passwords.spend_like_a_check(password)
        elif passwords.verify_password(password, r.password_hash):
            if r.status != "active":
                raise SignInRefused(f"This account is {r.status}; ask a lead.")
            self._succeeded(keys[0], r, password)
            log.info("signed in: account %r, client %s", name, client or "-")
            return user_from_row(r)
        failures = self._failed(keys, now)
        log.warning("sign-in failed: account %r, client %s (%d failures in a row)", name, client or "-", failures)
        if self.policy.wait_after(failures):
            log.warning("sign-in locked for %s: account %r, client %s", self.policy.wait_after(failures), name, client or "-")
        raise SignInRefused(WRONG)

    def authenticate(self, username: str, password: str, client: str | None = None) -> User | None:
        """:meth:`sign_in`, with None for any refusal."""
        try:
            return self.sign_in(username, password, client)
        except SignInRefused:
            return None

    def _locked_for(self, keys: list[str], now: datetime) -> timedelta:
        with self._read() as c:
            until = c.execute(sa.select(signin_throttle.c.locked_until).where(
                signin_throttle.c.key.in_(keys), signin_throttle.c.locked_until.is_not(None))).scalars().all()
        return max([as_utc(u) - now for u in until if as_utc(u) > now], default=timedelta(0))

    def _failed(self, keys: list[str], now: datetime) -> int:
        """Count a failure against every key (atomically: concurrent failures all count); the
        largest count after it."""
        t = signin_throttle
        most = 0
        with self._write() as c:
            for key in keys:
                stmt = dialect_insert(c, t).values(key=key, failures=1, last_failure=now, locked_until=None)
                stmt = stmt.on_conflict_do_update(index_elements=["key"], set_={
                    "failures": sa.case((t.c.last_failure < now - self.policy.forget_after, 1), else_=t.c.failures + 1),
                    "last_failure": now,
                })
                failures = c.execute(stmt.returning(t.c.failures)).scalar_one()
                wait = self.policy.wait_after(failures)
                if wait:
                    c.execute(t.update().where(t.c.key == key).values(locked_until=now + wait))
                most = max(most, failures)
        return most

    def _succeeded(self, account_key: str, r, password: str) -> None:  # noqa: ANN001 - a users row
        """Clear the account's failures (a client's are only forgotten with time: signing in to one's
        own account must not buy more guesses at others); replace a PBKDF2 (or weaker) hash by
        Argon2id now that the password is known."""
        with self._write() as c:
            c.execute(signin_throttle.delete().where(signin_throttle.c.key == account_key))
            if passwords.needs_upgrade(r.password_hash):
                c.execute(users.update().where(users.c.id == r.id, users.c.password_hash == r.password_hash)
                          .values(password_hash=passwords.hash_password(password)))

    # -- tokens -------------------------------------------------------------------------------------

    @functools.cached_property
    def _token_key(self) -> bytes:
        """The server secret that signs tokens (made once per database, kept in settings)."""
        with self._write() as c:
            c.execute(dialect_insert(c, settings).values(key="token_secret", value=secrets.token_hex(32))
                      .on_conflict_do_nothing(index_elements=["key"]))
            return bytes.fromhex(c.execute(sa.select(settings.c.value).where(settings.c.key == "token_secret")).scalar_one())

    def _signature(self, payload: str) -> str:
        return _b64(hmac.new(self._token_key, payload.encode("ascii"), hashlib.sha256).digest())

    def issue_token(self, user: User, ttl: timedelta | None = None) -> str:
        """A sign-in token for an active account, valid for ``ttl`` (default: the policy's)."""
        with self._read() as c:
            r = c.execute(sa.select(users.c.auth_epoch, users.c.status).where(users.c.id == user.id)).first()
        if r is None or r.status != "active":
            raise AccessDenied(f"account '{user.username}' cannot sign in")
        expires = int((self._now() + (ttl or self.policy.token_ttl)).timestamp())
        payload = f"{user.id}.{r.auth_epoch}.{expires}"
        return f"{payload}.{self._signature(payload)}"

    def _token_parts(self, token: str | None) -> tuple[int, int, int, str] | None:
        """User id, epoch, expiry and signature of a token the server signed that has not expired."""
        try:
            uid, epoch, expires, signature = (token or "").split(".")
            ids = int(uid), int(epoch), int(expires)
        except ValueError:
            return None
        if not hmac.compare_digest(signature, self._signature(f"{uid}.{epoch}.{expires}")):
            return None
        if ids[2] <= self._now().timestamp():
            return None
        return (*ids, signature)

    def user_for_token(self, token: str | None) -> User | None:
        """The user a token signs in, or None (malformed, forged, expired or revoked)."""
        parts = self._token_parts(token)
        if parts is None:
            return None
        uid, epoch, _, signature = parts
        revoked = sa.select(revoked_tokens.c.signature).where(revoked_tokens.c.signature == signature)
        with self._read() as c:
            r = c.execute(sa.select(users).where(users.c.id == uid, users.c.auth_epoch == epoch,
                                                 users.c.status == "active", ~revoked.exists())).first()
        return user_from_row(r) if r else None

    def revoke_token(self, token: str | None) -> bool:
        """Void one sign-in token (its browser signed out): True once it is revoked, False for what is
        no valid token (malformed, forged, expired, or its account deleted). Revoked tokens past their
        expiry are forgotten at the same time (they are refused anyway)."""
        parts = self._token_parts(token)
        if parts is None:
            return False
        uid, _, expires, signature = parts
        now = self._now()
        until = sa.literal(datetime.fromtimestamp(expires, now.tzinfo), revoked_tokens.c.expires_at.type)
        # Only for an account that still exists: a deleted account's tokens are void anyway.
        row = sa.select(sa.literal(signature, revoked_tokens.c.signature.type), users.c.id, until).where(users.c.id == uid)
        try:
            with self._write() as c:
                c.execute(revoked_tokens.delete().where(revoked_tokens.c.expires_at <= now))
                c.execute(dialect_insert(c, revoked_tokens).from_select(["signature", "user_id", "expires_at"], row)
                          .on_conflict_do_nothing(index_elements=["signature"]))
                revoked = c.execute(sa.select(revoked_tokens.c.user_id).where(revoked_tokens.c.signature == signature)).first()
        except sa.exc.IntegrityError:  # the account was deleted in between
            return False
        if revoked:
            log.info("sign-in token revoked: account id %d", uid)
        return revoked is not None
