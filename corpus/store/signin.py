"""Signing in: password checks that nobody else can lock out, and signed, expiring sign-in tokens.

**Known devices** (OWASP's device cookies). A browser that has signed in to an account is given a
*device token* for it (:meth:`SignIn.issue_device_token`): ``<user id>.<device id>.<issued>.<HMAC>``,
signed with the server secret and the account's own sign-in key, kept by the browser for
:attr:`SignInPolicy.device_ttl`. The right password from a known device always gets through,
whatever anyone else does with the name or from the same address (a lab's NAT, a proxy, a shared
machine). A known device's own failures are counted on the device: after
:attr:`SignInPolicy.device_free_failures` in a row it is treated as unknown for
:attr:`SignInPolicy.forget_after` (a stolen device token buys a handful of guesses, no more).

**Unknown devices** are throttled, never locked out: past the free attempts, an attempt is checked
only with a *proof of work* (a captcha-free proof that costs the browser time, :func:`proof_holds`):
the server gives a signed, single-use challenge, the browser finds a counter whose SHA-256 with it
starts with :meth:`SignInPolicy.proof_bits` zero bits (about a second of a browser's time at the
first level, doubling with each level up to about half a minute), and the attempt with the proof is
checked. Nothing is ever refused for good or for a while: the owner on a new browser behind the
attacker's address pays seconds, the guesser pays them for every guess. The level is the highest of:

- the (account name, client) pair's failures in a row past :attr:`SignInPolicy.free_attempts`
  (the failing client);
- the name's failures from unknown devices in :attr:`SignInPolicy.forget_after`, from any clients,
  once :attr:`SignInPolicy.account_alarm` or more (a guesser spread over many addresses: the account,
  for unknown devices only), one level more each time they double;
- the client's failures on :attr:`SignInPolicy.client_alarm` different names (one address trying
  many accounts).

The server checks no password of an attempt that needs a proof and brings none: a flood of
attempts costs it a signature each, not a password hash. A challenge is bound to the name and the
client, expires after :attr:`SignInPolicy.proof_ttl` and is taken once; a proof of a lower level
than the one needed now (failures came in the meantime) is answered with a new challenge.

Names that belong to no account are counted like any other, and every refusal says the same words
whether the account exists or not (an unknown name also costs the same hashing time). Every
failure is logged (logger ``groundwork.signin``) and kept for :attr:`SignInPolicy.keep_failures`
(at most :attr:`SignInPolicy.max_failures_kept` rows) with the device it came from:
:meth:`SignIn.failed_sign_ins` shows a lead. A wrong current password in a password change is
throttled, logged and shown the same way (:meth:`SignIn.check_password_change`).

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
from datetime import datetime, timedelta

import pandas as pd
import sqlalchemy as sa

from corpus.store import passwords
from corpus.store.access import require_lead
from corpus.store.base import AccessDenied, StoreBase, User, as_utc, new_sign_in_key, user_from_row
from corpus.store.engine import dialect_insert
from corpus.store.signin_policy import SignInPolicy, proof_holds, solve_proof  # noqa: F401  (re-exported)
from corpus.store.tables import revoked_tokens, settings, signin_failures, signin_throttle, users

log = logging.getLogger("groundwork.signin")

WRONG = "Unknown username or wrong password."
PASSWORD_CHANGE = "password change"  # signin_failures.attempt of a wrong current password
# id . sign-in key . epoch . expiry . signature (32 bytes, base64url without padding)
_TOKEN = re.compile(r"(\d{1,18})\.([0-9a-f]{32})\.(\d{1,9})\.(\d{1,12})\.([A-Za-z0-9_-]{43})", re.ASCII)
# user id . device id . issued . signature
_DEVICE = re.compile(r"(\d{1,18})\.([0-9a-f]{32})\.(\d{1,12})\.([A-Za-z0-9_-]{43})", re.ASCII)
# level . issued . nonce . signature, then ":" and the counter the browser found
_PROOF = re.compile(r"((\d{1,2})\.(\d{1,12})\.([0-9a-f]{32})\.([A-Za-z0-9_-]{43})):(\d{1,15})", re.ASCII)
DEVICE_SEPARATOR = "~"  # between the device tokens of several accounts in one browser
DEVICES_KEPT = 5  # device tokens one browser keeps (the accounts last signed in to there)
_NAME_KEPT = 100  # characters of a typed name and of a client address kept for the backoff


class SignInRefused(AccessDenied):
    """A refused sign-in; the message never says whether the account exists."""


class ProofNeeded(SignInRefused):
    """The attempt was not checked: it needs a proof of work on :attr:`challenge` with :attr:`bits`
    leading zero bits (:func:`proof_holds`), sent back as ``"<challenge>:<counter>"``."""

    def __init__(self, challenge: str, bits: int, level: int):
        super().__init__(
            "Several failed sign-ins from this address: before your password is checked, your browser proves "
            "it waited (a few seconds of its time, no puzzle to solve)."
        )
        self.challenge, self.bits, self.level = challenge, bits, level


def _wait_message(wait: timedelta) -> str:
    seconds = max(1, math.ceil(wait.total_seconds()))
    when = f"{seconds} second{'s' * (seconds != 1)}" if seconds < 120 else f"{math.ceil(seconds / 60)} minutes"
    return f"Too many wrong current passwords. Try again in {when}."


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


def _pair_key(account: str, client: str) -> str:
    return f"pair:{client}\n{account}"


def _device_key(device: str) -> str:
    return f"device:{device}"


class SignIn(StoreBase):
    policy: SignInPolicy = SignInPolicy()

    def sign_in(
        self,
        username: str,
        password: str,
        client: str | None = None,
        device: str | None = None,
        proof: str | None = None,
    ) -> User:
        """The user, or :class:`SignInRefused` (wrong or unknown), or :class:`ProofNeeded` (an unknown
        device past its free attempts: the attempt was not checked). ``device`` is what the browser
        keeps of :meth:`issue_device_token` (several tokens joined by :data:`DEVICE_SEPARATOR`),
        ``proof`` a solved challenge."""
        name = (username or "").strip()
        account, where = name.lower()[:_NAME_KEPT], (client or "-")[:_NAME_KEPT]
        pair = _pair_key(account, where)
        now = self._now()
        with self._read() as c:
            r = c.execute(sa.select(users).where(users.c.username == name)).first()
            known = self._known_device(c, r, device, now)
            level = 0 if known else self._level(c, pair, account, where, now)
        if level and not self._proof_taken(proof, account, where, level, now):
            log.warning("sign-in needs a proof: account %r, client %s, level %d", name, where, level)
            raise ProofNeeded(self._challenge(account, where, level, now), self.policy.proof_bits(level), level)
        if r is None or not r.password_hash:
            passwords.spend_like_a_check(password)
        elif passwords.verify_password(password, r.password_hash):
            if r.status != "active":
                raise SignInRefused(f"This account is {r.status}; ask a lead.")
            self._succeeded(pair, r, password, known)
            log.info("signed in: account %r, client %s%s", name, where, " (known device)" if known else "")
            return user_from_row(r)
        failures, level, alarm = self._failed(pair, account, where, now, known)
        log.warning(
            "sign-in failed: account %r, client %s%s (%d failures in a row%s)",
            name,
            where,
            f", known device {known[:8]}" if known else "",
            failures,
            f"; {alarm}" if alarm else "",
        )
        if level:
            log.warning("sign-in needs proofs of level %d from now: account %r, client %s", level, name, where)
        raise SignInRefused(WRONG)

    def proof_level(self, username: str, client: str | None = None, device: str | None = None) -> int:
        """The proof level an attempt on ``username`` from ``client`` (and ``device``) needs now; 0:
        none. Asks, changes nothing."""
        name = (username or "").strip()
        account, where = name.lower()[:_NAME_KEPT], (client or "-")[:_NAME_KEPT]
        now = self._now()
        with self._read() as c:
            r = c.execute(sa.select(users).where(users.c.username == name)).first()
            if self._known_device(c, r, device, now):
                return 0
            return self._level(c, _pair_key(account, where), account, where, now)

    def authenticate(
        self, username: str, password: str, client: str | None = None, device: str | None = None
    ) -> User | None:
        """:meth:`sign_in`, with None for any refusal (a proof needed among them)."""
        try:
            return self.sign_in(username, password, client, device)
        except SignInRefused:
            return None

    # -- known devices ------------------------------------------------------------------------------

    def _device_signature(self, uid: int, device: str, issued: int, sign_in_key: str) -> str:
        payload = f"device|{uid}|{device}|{issued}|{sign_in_key}"
        return _b64(hmac.new(self._token_key, payload.encode("ascii"), hashlib.sha256).digest())

    def issue_device_token(self, user: User, held: str | None = None) -> str:
        """What the browser that ``user`` just signed in from keeps: its device tokens (``held``, as
        it sent them) with this account's made new (the same device id where it had one), the newest
        :data:`DEVICES_KEPT`, joined by :data:`DEVICE_SEPARATOR`."""
        with self._read() as c:
            r = c.execute(sa.select(users).where(users.c.id == user.id)).first()
        if r is None or r.status != "active":
            raise AccessDenied(f"account '{user.username}' cannot sign in")
        key = r.sign_in_key or self._give_sign_in_key(user.id)
        others, device = [], secrets.token_hex(16)
        for part in (held or "").split(DEVICE_SEPARATOR)[: DEVICES_KEPT * 2]:
            m = _DEVICE.fullmatch(part)
            if m is None:
                continue
            if int(m.group(1)) == user.id:
                device = m.group(2)  # the same browser keeps its device id for the account
            elif part not in others:
                others.append(part)
        issued = int(self._now().timestamp())
        mine = f"{user.id}.{device}.{issued}.{self._device_signature(user.id, device, issued, key)}"
        return DEVICE_SEPARATOR.join([*others[-(DEVICES_KEPT - 1) :], mine])

    def _known_device(self, c: sa.Connection, r, held: str | None, now: datetime) -> str | None:  # noqa: ANN001
        """The id of the device the browser's tokens make known to the account of row ``r``; None when
        there is none valid, or it failed too often lately (it is then an unknown device)."""
        if r is None or not held or not r.sign_in_key or len(held) > 200 * DEVICES_KEPT:
            return None
        for part in held.split(DEVICE_SEPARATOR)[: DEVICES_KEPT * 2]:
            m = _DEVICE.fullmatch(part)
            if m is None or int(m.group(1)) != r.id:
                continue
            device, issued = m.group(2), int(m.group(3))
            good = self._device_signature(r.id, device, issued, r.sign_in_key)
            if not hmac.compare_digest(m.group(4), good):
                continue
            if datetime.fromtimestamp(issued, now.tzinfo) + self.policy.device_ttl <= now:
                continue
            row = c.execute(
                sa.select(signin_throttle.c.locked_until).where(signin_throttle.c.key == _device_key(device))
            ).first()
            if row is not None and row.locked_until is not None and as_utc(row.locked_until) > now:
                return None
            return device
        return None

    # -- proofs of work ---------------------------------------------------------------------------

    def _level(self, c: sa.Connection, pair: str, account: str, client: str, now: datetime) -> int:
        """The proof level an attempt of this pair from an unknown device needs now (0: none)."""
        p, t, f = self.policy, signin_throttle, signin_failures
        since = now - p.forget_after
        row = c.execute(sa.select(t.c.failures, t.c.last_failure).where(t.c.key == pair)).first()
        failures = row.failures if row is not None and as_utc(row.last_failure) >= since else 0
        unknown = f.c.device.is_(None) & f.c.attempt.is_(None) & (f.c.at > since)
        on_account = c.execute(sa.select(sa.func.count()).where(f.c.account == account, unknown)).scalar_one()
        names = c.execute(
            sa.select(sa.func.count(sa.distinct(f.c.account))).where(f.c.client == client, unknown)
        ).scalar_one()
        free = 1 if names >= p.client_alarm else None
        return max(p.level_after(failures + (free is not None), free), p.account_level(on_account))

    def _proof_signature(self, account: str, client: str, level: int, issued: int, nonce: str) -> str:
        payload = f"proof|{account}|{client}|{level}|{issued}|{nonce}"
        return _b64(hmac.new(self._token_key, payload.encode("utf-8"), hashlib.sha256).digest())

    def _challenge(self, account: str, client: str, level: int, now: datetime) -> str:
        issued, nonce = int(now.timestamp()), secrets.token_hex(16)
        return f"{level}.{issued}.{nonce}.{self._proof_signature(account, client, level, issued, nonce)}"

    def _proof_taken(self, proof: str | None, account: str, client: str, level: int, now: datetime) -> bool:
        """Whether ``proof`` solves a challenge this server gave this pair, of ``level`` or higher, not
        expired and not used before; it is used up now."""
        m = _PROOF.fullmatch(proof or "")
        if m is None:
            return False
        challenge, given, issued, nonce, signature, counter = m.groups()
        if int(given) < level or not hmac.compare_digest(
            signature, self._proof_signature(account, client, int(given), int(issued), nonce)
        ):
            return False
        expires = datetime.fromtimestamp(int(issued), now.tzinfo) + self.policy.proof_ttl
        if expires <= now or not proof_holds(challenge, int(counter), self.policy.proof_bits(int(given))):
            return False
        with self._write() as c:  # taken once: the nonce's row is the receipt
            stmt = dialect_insert(c, signin_throttle).values(
                key=f"proof:{nonce}", failures=0, last_failure=now, locked_until=expires
            )
            taken = c.execute(
                stmt.on_conflict_do_nothing(index_elements=["key"]).returning(signin_throttle.c.key)
            ).first()
        return taken is not None

    # -- failures and successes -------------------------------------------------------------------

    def _record_failure(self, c: sa.Connection, account: str, client: str, now: datetime, **extra: str | None) -> None:
        """Keep one failure for the lead and the alarms (and forget what is past keeping)."""
        f, t, p = signin_failures, signin_throttle, self.policy
        newest = c.execute(
            f.insert().values(account=account, client=client, at=now, **extra).returning(f.c.id)
        ).scalar_one()
        c.execute(f.delete().where((f.c.at < now - p.keep_failures) | (f.c.id <= newest - p.max_failures_kept)))
        c.execute(
            t.delete().where(
                t.c.last_failure < now - p.forget_after, sa.or_(t.c.locked_until.is_(None), t.c.locked_until < now)
            )
        )

    def _count(self, c: sa.Connection, key: str, now: datetime) -> int:
        """One more failure in a row on ``key`` (atomically: concurrent failures all count)."""
        t, p = signin_throttle, self.policy
        stmt = dialect_insert(c, t).values(key=key, failures=1, last_failure=now, locked_until=None)
        stmt = stmt.on_conflict_do_update(
            index_elements=["key"],
            set_={
                "failures": sa.case((t.c.last_failure < now - p.forget_after, 1), else_=t.c.failures + 1),
                "last_failure": now,
            },
        )
        return c.execute(stmt.returning(t.c.failures)).scalar_one()

    def _failed(self, pair: str, account: str, client: str, now: datetime, device: str | None) -> tuple[int, int, str]:
        """Record a failure: the failures in a row (of the device, when known, else of the pair), the
        proof level the pair needs from now (0 for a known device), and why, if an alarm says so."""
        p = self.policy
        with self._write() as c:
            self._record_failure(c, account, client, now, device=device)
            if device is not None:
                failures = self._count(c, _device_key(device), now)
                if failures >= p.device_free_failures:
                    c.execute(
                        signin_throttle.update()
                        .where(signin_throttle.c.key == _device_key(device))
                        .values(locked_until=now + p.forget_after)
                    )
                    return failures, 0, f"the device counts as unknown for {p.forget_after}"
                return failures, 0, ""
            failures = self._count(c, pair, now)
            level = self._level(c, pair, account, client, now)
        alarm = "" if level <= p.level_after(failures) else "the name or the client failed often lately"
        return failures, level, alarm

    def _succeeded(self, pair: str, r, password: str, device: str | None) -> None:  # noqa: ANN001 - a users row
        """Clear the failures in a row of what signed in (the known device, else the pair; the name's and
        the client's others stay: signing in to one's own account must not buy more guesses at others);
        replace a PBKDF2 (or weaker) hash by Argon2id now that the password is known."""
        with self._write() as c:
            c.execute(
                signin_throttle.delete().where(signin_throttle.c.key == (_device_key(device) if device else pair))
            )
            if passwords.needs_upgrade(r.password_hash):
                c.execute(
                    users.update()
                    .where(users.c.id == r.id, users.c.password_hash == r.password_hash)
                    .values(password_hash=passwords.hash_password(password))
                )

    # -- a password change's check of the current password ------------------------------------------

    def check_password_change(self, user: User, current: str, client: str | None = None) -> None:
        """Check the current password of ``user``'s own password change, behind the same backoff as a
        sign-in's and logged like one: :class:`SignInRefused` if it is wrong, or if the account has
        had too many wrong ones in a row lately (a wait of 30 s, doubling up to 15 minutes: the
        account stays signed in and signs in as before; only changing its password waits)."""
        where, now = (client or "-")[:_NAME_KEPT], self._now()
        key = f"password:{user.id}"
        with self._read() as c:
            r = c.execute(sa.select(users).where(users.c.id == user.id)).first()
            lock = c.execute(sa.select(signin_throttle.c.locked_until).where(signin_throttle.c.key == key)).scalar()
        if lock is not None and as_utc(lock) > now:
            log.warning("password change refused while waiting: account %r, client %s", user.username, where)
            raise SignInRefused(_wait_message(as_utc(lock) - now))
        if r is not None and r.status == "active" and passwords.verify_password(current, r.password_hash):
            with self._write() as c:
                c.execute(signin_throttle.delete().where(signin_throttle.c.key == key))
            return
        account = user.username.lower()[:_NAME_KEPT]
        with self._write() as c:
            self._record_failure(c, account, where, now, attempt=PASSWORD_CHANGE)
            failures = self._count(c, key, now)
            wait = self.policy.password_change_wait_after(failures)
            if wait:
                c.execute(signin_throttle.update().where(signin_throttle.c.key == key).values(locked_until=now + wait))
        log.warning(
            "password change failed: wrong current password, account %r, client %s (%d in a row)",
            user.username,
            where,
            failures,
        )
        if wait:
            log.warning("password change waits %s: account %r", wait, user.username)
        raise SignInRefused("current password: wrong; the password was not changed")

    # -- what a lead sees -------------------------------------------------------------------------

    def failed_sign_ins(self, actor: User | None, days: int = 30) -> pd.DataFrame:
        """For a lead: the failed sign-ins (and wrong current passwords of password changes) of the
        last ``days`` per name typed, most recent first: account (the name; ``None`` in
        ``is_account`` when no account has it), failures in the last 24 hours and in ``days``, how
        many of them came from the account's known devices and how many were password changes, the
        clients they came from, the last one, and how many clients need a proof now."""
        require_lead(actor)
        now = self._now()
        f, t = signin_failures, signin_throttle
        with self._read() as c:
            rows = pd.DataFrame(
                c.execute(
                    sa.select(f.c.account, f.c.client, f.c.at, f.c.device, f.c.attempt).where(
                        f.c.at > now - timedelta(days=days)
                    )
                ).all(),
                columns=["account", "client", "at", "device", "attempt"],
            )
            names = {r.username.lower() for r in c.execute(sa.select(users.c.username))}
            pairs = c.execute(
                sa.select(t.c.key, t.c.failures).where(
                    t.c.key.startswith("pair:"), t.c.last_failure >= now - self.policy.forget_after
                )
            ).all()
        columns = [
            "account",
            "is_account",
            "failures_24h",
            f"failures_{days}d",
            "known_devices",
            "password_changes",
            "clients",
            "last_failure",
            "clients_proving",
        ]
        if rows.empty:
            return pd.DataFrame(columns=columns)
        rows["at"] = rows["at"].map(as_utc)
        proving = pd.Series(
            [k.split("\n", 1)[1] for k, n in pairs if "\n" in k and self.policy.level_after(n)], dtype=object
        ).value_counts()
        out = (
            rows.assign(known=rows["device"].notna(), changes=rows["attempt"] == PASSWORD_CHANGE)
            .groupby("account")
            .agg(
                failures_24h=("at", lambda a: int((a > now - timedelta(days=1)).sum())),
                failures=("at", "size"),
                known_devices=("known", "sum"),
                password_changes=("changes", "sum"),
                clients=("client", "nunique"),
                last_failure=("at", "max"),
            )
            .reset_index()
        )
        out = out.rename(columns={"failures": f"failures_{days}d"})
        out["is_account"] = out["account"].isin(names)
        out["clients_proving"] = out["account"].map(proving).fillna(0).astype(int)
        for column in ("known_devices", "password_changes"):
            out[column] = out[column].astype(int)
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
