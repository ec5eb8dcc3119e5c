"""Signing in: password checks behind a backoff, and signed, expiring sign-in tokens.

**Backoff** (as OWASP's authentication guidance advises: throttle, never lock an account for good).
Failed sign-ins are counted per (account name, client) pair, the client being the address the app
passes. A pair's first :attr:`SignInPolicy.free_attempts` failures in a row cost nothing; each one
after that makes the pair wait, from :attr:`SignInPolicy.first_wait`, doubling up to
:attr:`SignInPolicy.lockout`. While a pair waits, its attempts are refused without looking at the
password. A success clears the pair's count; failures older than :attr:`SignInPolicy.forget_after`
are forgotten. Two alarms take the free attempts away (the first failure of a pair then makes it
wait): an account that failed :attr:`SignInPolicy.account_alarm` times in that window from any
clients (a guesser spread over many addresses), and a client that failed on
:attr:`SignInPolicy.client_alarm` different names in it (one address trying many accounts). Neither
ever refuses a pair that has not failed: the owner's right password from their own client signs in
whatever others do with the name.

Names that belong to no account are counted like any other, and every refusal says the same words
whether the account exists or not (an unknown name also costs the same hashing time). Every
failure is logged (logger ``groundwork.signin``) and kept for :attr:`SignInPolicy.keep_failures`
(at most :attr:`SignInPolicy.max_failures_kept` rows): :meth:`SignIn.failed_sign_ins` shows a lead.

**Tokens.** :meth:`SignIn.issue_token` gives a signed-in user a token the app may keep in a
cookie: ``<user id>.<sign-in key>.<epoch>.<expiry>.<HMAC-SHA256 signature>``, signed with a random
server secret kept in the database's settings table. The sign-in key is random, made with the
account and never given to another, so a token of a deleted account never signs in an account
created later with the same id. A token is valid until it expires and while its account is active
with the same key and epoch: changing or resetting the password, disabling or deleting the account
raises the epoch and voids every token issued before. :meth:`SignIn.revoke_token` voids one token
(its browser signed out): a copy of it taken before is refused from then on. A revoked token is
remembered until it would have expired, and only a token the server signed is remembered. Anything
that is not a token's exact shape (another character set, another length) is refused before any
look-up.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import hmac
import logging
import math
import re
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta

import pandas as pd
import sqlalchemy as sa

from corpus.store import passwords
from corpus.store.access import require_lead
from corpus.store.base import AccessDenied, StoreBase, User, as_utc, new_sign_in_key, user_from_row
from corpus.store.engine import dialect_insert
from corpus.store.tables import revoked_tokens, settings, signin_failures, signin_throttle, users

log = logging.getLogger("groundwork.signin")

WRONG = "Unknown username or wrong password."
# id . sign-in key . epoch . expiry . signature (32 bytes, base64url without padding)
_TOKEN = re.compile(r"(\d{1,18})\.([0-9a-f]{32})\.(\d{1,9})\.(\d{1,12})\.([A-Za-z0-9_-]{43})", re.ASCII)
_NAME_KEPT = 100  # characters of a typed name and of a client address kept for the backoff


class SignInRefused(AccessDenied):
    """A refused sign-in; the message never says whether the account exists."""


@dataclass(frozen=True)
class SignInPolicy:
    free_attempts: int = 5
    first_wait: timedelta = timedelta(seconds=30)
    lockout: timedelta = timedelta(minutes=15)
    forget_after: timedelta = timedelta(hours=1)
    account_alarm: int = 10  # failures on one name, from any clients, within forget_after
    client_alarm: int = 5  # different names one client failed on within forget_after
    token_ttl: timedelta = timedelta(hours=12)
    keep_failures: timedelta = timedelta(days=30)
    max_failures_kept: int = 100_000

    def wait_after(self, failures: int, free: int | None = None) -> timedelta:
        """How long a pair waits after ``failures`` failures in a row, the first ``free`` (default:
        :attr:`free_attempts`) of them free."""
        free = self.free_attempts if free is None else free
        if failures < free:
            return timedelta(0)
        return min(self.first_wait * 2 ** min(failures - free, 30), self.lockout)


def _locked_message(wait: timedelta) -> str:
    seconds = max(1, math.ceil(wait.total_seconds()))
    when = f"{seconds} second{'s' * (seconds != 1)}" if seconds < 120 else f"{math.ceil(seconds / 60)} minutes"
    return f"Too many failed sign-ins. Try again in {when}."


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


def _pair_key(account: str, client: str) -> str:
    return f"pair:{client}\n{account}"


class SignIn(StoreBase):
    policy: SignInPolicy = SignInPolicy()

    def sign_in(self, username: str, password: str, client: str | None = None) -> User:
        """The user, or :class:`SignInRefused` (wrong or unknown, or this client waits for a while)."""
        name = (username or "").strip()
        account, where = name.lower()[:_NAME_KEPT], (client or "-")[:_NAME_KEPT]
        pair = _pair_key(account, where)
        now = self._now()
        wait = self._locked_for(pair, now)
        if wait:
            log.warning("sign-in refused while waiting: account %r, client %s", name, where)
            raise SignInRefused(_locked_message(wait))
        with self._read() as c:
            r = c.execute(sa.select(users).where(users.c.username == name)).first()
        if r is None or not r.password_hash:
            passwords.spend_like_a_check(password)
        elif passwords.verify_password(password, r.password_hash):
            if r.status != "active":
                raise SignInRefused(f"This account is {r.status}; ask a lead.")
            self._succeeded(pair, r, password)
            log.info("signed in: account %r, client %s", name, where)
            return user_from_row(r)
        failures, wait, alarm = self._failed(pair, account, where, now)
        log.warning(
            "sign-in failed: account %r, client %s (%d failures in a row%s)",
            name,
            where,
            failures,
            f"; {alarm}" if alarm else "",
        )
        if wait:
            log.warning("sign-in waits %s: account %r, client %s", wait, name, where)
        raise SignInRefused(WRONG)

    def authenticate(self, username: str, password: str, client: str | None = None) -> User | None:
        """:meth:`sign_in`, with None for any refusal."""
        try:
            return self.sign_in(username, password, client)
        except SignInRefused:
            return None

    def _locked_for(self, pair: str, now: datetime) -> timedelta:
        with self._read() as c:
            until = c.execute(sa.select(signin_throttle.c.locked_until).where(signin_throttle.c.key == pair)).scalar()
        return as_utc(until) - now if until is not None and as_utc(until) > now else timedelta(0)

    def _alarm(self, c: sa.Connection, account: str, client: str, now: datetime) -> str:
        """Why this pair has no free attempts (empty: it has them)."""
        f, since = signin_failures, now - self.policy.forget_after
        on_account = c.execute(sa.select(sa.func.count()).where(f.c.account == account, f.c.at > since)).scalar_one()
        if on_account >= self.policy.account_alarm:
            return f"{on_account} failures on the name in {self.policy.forget_after}"
        names = c.execute(
            sa.select(sa.func.count(sa.distinct(f.c.account))).where(f.c.client == client, f.c.at > since)
        ).scalar_one()
        if names >= self.policy.client_alarm:
            return f"the client failed on {names} names in {self.policy.forget_after}"
        return ""

    def _failed(self, pair: str, account: str, client: str, now: datetime) -> tuple[int, timedelta, str]:
        """Record a failure (atomically: concurrent failures all count): the pair's failures in a
        row, how long it now waits, and the alarm that took its free attempts away (if any)."""
        t, f, p = signin_throttle, signin_failures, self.policy
        with self._write() as c:
            newest = c.execute(f.insert().values(account=account, client=client, at=now).returning(f.c.id)).scalar_one()
            c.execute(f.delete().where((f.c.at < now - p.keep_failures) | (f.c.id <= newest - p.max_failures_kept)))
            c.execute(
                t.delete().where(
                    t.c.last_failure < now - p.forget_after, sa.or_(t.c.locked_until.is_(None), t.c.locked_until < now)
                )
            )
            stmt = dialect_insert(c, t).values(key=pair, failures=1, last_failure=now, locked_until=None)
            stmt = stmt.on_conflict_do_update(
                index_elements=["key"],
                set_={
                    "failures": sa.case((t.c.last_failure < now - p.forget_after, 1), else_=t.c.failures + 1),
                    "last_failure": now,
                },
            )
            failures = c.execute(stmt.returning(t.c.failures)).scalar_one()
            alarm = self._alarm(c, account, client, now)
            wait = p.wait_after(failures, 1 if alarm else None)
            if wait:
                c.execute(t.update().where(t.c.key == pair).values(locked_until=now + wait))
        return failures, wait, alarm

    def _succeeded(self, pair: str, r, password: str) -> None:  # noqa: ANN001 - a users row
        """Clear the pair's failures (the name's and the client's others stay: signing in to one's own
        account must not buy more guesses at others); replace a PBKDF2 (or weaker) hash by Argon2id
        now that the password is known."""
        with self._write() as c:
            c.execute(signin_throttle.delete().where(signin_throttle.c.key == pair))
            if passwords.needs_upgrade(r.password_hash):
                c.execute(
                    users.update()
                    .where(users.c.id == r.id, users.c.password_hash == r.password_hash)
                    .values(password_hash=passwords.hash_password(password))
                )

    def failed_sign_ins(self, actor: User | None, days: int = 30) -> pd.DataFrame:
        """For a lead: the failed sign-ins of the last ``days`` per name typed, most recent first:
        account (the name; ``None`` in ``is_account`` when no account has it), failures in the last
        24 hours and in ``days``, the clients they came from, the last one, and how many clients wait
        now."""
        require_lead(actor)
        now = self._now()
        f, t = signin_failures, signin_throttle
        with self._read() as c:
            rows = pd.DataFrame(
                c.execute(sa.select(f.c.account, f.c.client, f.c.at).where(f.c.at > now - timedelta(days=days))).all(),
                columns=["account", "client", "at"],
            )
            names = {r.username.lower() for r in c.execute(sa.select(users.c.username))}
            waiting = [k for (k,) in c.execute(sa.select(t.c.key).where(t.c.locked_until > now))]
        columns = [
            "account",
            "is_account",
            "failures_24h",
            f"failures_{days}d",
            "clients",
            "last_failure",
            "clients_waiting",
        ]
        if rows.empty:
            return pd.DataFrame(columns=columns)
        rows["at"] = rows["at"].map(as_utc)
        waits = pd.Series([k.split("\n", 1)[1] for k in waiting if "\n" in k], dtype=object).value_counts()
        out = (
            rows.groupby("account")
            .agg(
                failures_24h=("at", lambda a: int((a > now - timedelta(days=1)).sum())),
                failures=("at", "size"),
                clients=("client", "nunique"),
                last_failure=("at", "max"),
            )
            .reset_index()
        )
        out = out.rename(columns={"failures": f"failures_{days}d"})
        out["is_account"] = out["account"].isin(names)
        out["clients_waiting"] = out["account"].map(waits).fillna(0).astype(int)
        return out.sort_values("last_failure", ascending=False)[columns].reset_index(drop=True)

    # -- tokens -------------------------------------------------------------------------------------

    @functools.cached_property
    def _token_key(self) -> bytes:
        """The server secret that signs tokens (made once per database, kept in settings)."""
        with self._write() as c:
            c.execute(
                dialect_insert(c, settings)
                .values(key="token_secret", value=secrets.token_hex(32))
                .on_conflict_do_nothing(index_elements=["key"])
            )
            return bytes.fromhex(
                c.execute(sa.select(settings.c.value).where(settings.c.key == "token_secret")).scalar_one()
            )

    def _signature(self, payload: str) -> str:
        return _b64(hmac.new(self._token_key, payload.encode("ascii"), hashlib.sha256).digest())

    def issue_token(self, user: User, ttl: timedelta | None = None) -> str:
        """A sign-in token for an active account, valid for ``ttl`` (default: the policy's)."""
        with self._read() as c:
            r = c.execute(
                sa.select(users.c.auth_epoch, users.c.status, users.c.sign_in_key).where(users.c.id == user.id)
            ).first()
        if r is None or r.status != "active":
            raise AccessDenied(f"account '{user.username}' cannot sign in")
        key = r.sign_in_key or self._give_sign_in_key(user.id)
        expires = int((self._now() + (ttl or self.policy.token_ttl)).timestamp())
        payload = f"{user.id}.{key}.{r.auth_epoch}.{expires}"
        return f"{payload}.{self._signature(payload)}"

    def _give_sign_in_key(self, user_id: int) -> str:
        """The account's sign-in key, made now if it has none (an account added by hand)."""
        with self._write() as c:
            c.execute(
                users.update()
                .where(users.c.id == user_id, users.c.sign_in_key.is_(None))
                .values(sign_in_key=new_sign_in_key())
            )
            return c.execute(sa.select(users.c.sign_in_key).where(users.c.id == user_id)).scalar_one()

    def _token_parts(self, token: object) -> tuple[int, str, int, int, str] | None:
        """User id, sign-in key, epoch, expiry and signature of a token the server signed that has
        not expired; None for anything else (any other shape is refused before it is looked at)."""
        if not isinstance(token, str) or len(token) > 200:
            return None
        m = _TOKEN.fullmatch(token)
        if m is None:
            return None
        uid, key, epoch, expires, signature = m.groups()
        if not hmac.compare_digest(signature, self._signature(f"{uid}.{key}.{epoch}.{expires}")):
            return None
        if int(expires) <= self._now().timestamp():
            return None
        return int(uid), key, int(epoch), int(expires), signature

    def user_for_token(self, token: object) -> User | None:
        """The user a token signs in, or None (malformed, forged, expired, revoked, or its account
        gone, disabled or changed since)."""
        parts = self._token_parts(token)
        if parts is None:
            return None
        uid, key, epoch, _, signature = parts
        revoked = sa.select(revoked_tokens.c.signature).where(revoked_tokens.c.signature == signature)
        with self._read() as c:
            r = c.execute(
                sa.select(users).where(
                    users.c.id == uid,
                    users.c.sign_in_key == key,
                    users.c.auth_epoch == epoch,
                    users.c.status == "active",
                    ~revoked.exists(),
                )
            ).first()
        return user_from_row(r) if r else None

    def revoke_token(self, token: object) -> bool:
        """Void one sign-in token (its browser signed out): True once it is revoked, False for what is
        no valid token (malformed, forged, expired, or its account deleted). Revoked tokens past their
        expiry are forgotten at the same time (they are refused anyway)."""
        parts = self._token_parts(token)
        if parts is None:
            return False
        uid, _, _, expires, signature = parts
        now = self._now()
        until = sa.literal(datetime.fromtimestamp(expires, now.tzinfo), revoked_tokens.c.expires_at.type)
        # Only for an account that still exists: a deleted account's tokens are void anyway.
        row = sa.select(sa.literal(signature, revoked_tokens.c.signature.type), users.c.id, until).where(
            users.c.id == uid
        )
        try:
            with self._write() as c:
                c.execute(revoked_tokens.delete().where(revoked_tokens.c.expires_at <= now))
                c.execute(
                    dialect_insert(c, revoked_tokens)
                    .from_select(["signature", "user_id", "expires_at"], row)
                    .on_conflict_do_nothing(index_elements=["signature"])
                )
                revoked = c.execute(
                    sa.select(revoked_tokens.c.user_id).where(revoked_tokens.c.signature == signature)
                ).first()
        except sa.exc.IntegrityError:  # the account was deleted in between
            return False
        if revoked:
            log.info("sign-in token revoked: account id %d", uid)
        return revoked is not None
