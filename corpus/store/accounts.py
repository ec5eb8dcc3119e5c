"""Accounts: adding them, the first lead, passwords, disabling, enabling and deleting.

Deleting an account that has given labels or gold, created a task or shared numbers keeps a
tombstone: the row stays (status ``deleted``, no password, never signs in, cannot be enabled), so
every label keeps the coder's name in the history and the exports, and the username is never
handed to someone else. An account with none of these is removed outright. The last active lead
can be neither disabled nor deleted. A password change, reset, disabling or deletion voids every
sign-in token the account holds.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import secrets
from typing import TYPE_CHECKING

import sqlalchemy as sa

from corpus.limits import DISPLAY_NAME_CHARS
from corpus.store import passwords
from corpus.store.access import require_lead
from corpus.store.base import (
    AccessDenied,
    StoreBase,
    StoreError,
    User,
    inserted_key,
    new_sign_in_key,
    user_from_row,
)
from corpus.store.tables import (
    ROLES,
    agreement_snapshots,
    gold,
    labels,
    max_chars,
    revoked_tokens,
    settings,
    task_coders,
    tasks,
    users,
)

log = logging.getLogger("groundwork.signin")


def _check_password(password: str | None, kind: str = "human") -> None:
    if password is not None and len(password) < passwords.MIN_LENGTH and kind == "human":
        raise StoreError(f"password: must be at least {passwords.MIN_LENGTH} characters")


SETUP_TOKEN_ISSUED = (
    "Groundwork: a setup token was issued already for this database (by `make run`, `python -m corpus users "
    "setup-token` or another app process using it) and is still the one that works; to issue a new one, run "
    "`python -m corpus users setup-token`"
)


def setup_notice(token: str) -> str:
    """What the server console shows with a setup token (the app's first run, or
    ``python -m corpus users setup-token``, which ``make run`` runs before the server starts)."""
    return (
        f"Groundwork setup token: {token}\n"
        "  (open an Annotate page of the app, e.g. Tasks, and create the first lead account with it; "
        "or run `python -m corpus users add NAME --role lead`)"
    )


class Accounts(StoreBase):
    if TYPE_CHECKING:  # from the sign-in part of the Store

        def check_password_change(self, user: User, current: str, client: str | None = None) -> None: ...

    def create_user(
        self, username: str, password: str | None, role: str, display_name: str | None = None, kind: str = "human"
    ) -> User:
        with self._write() as c:
            return self._insert_user(c, username, password, role, display_name, kind)

    def _insert_user(
        self,
        c: sa.Connection,
        username: str,
        password: str | None,
        role: str,
        display_name: str | None = None,
        kind: str = "human",
    ) -> User:
        """Check and add an account inside the caller's transaction."""
        username = username.strip()
        if not username:
            raise StoreError("username: must not be empty")
        if len(username) > max_chars(users.c.username):
            raise StoreError(f"username: longer than {max_chars(users.c.username)} characters")
        if role not in ROLES:
            raise StoreError(f"role: '{role}' is not one of {', '.join(ROLES)}")
        _check_password(password, kind)
        if c.execute(sa.select(users.c.id).where(users.c.username == username)).first():
            raise StoreError(f"username: '{username}' is taken")
        uid = inserted_key(
            c.execute(
                users.insert().values(
                    username=username,
                    display_name=(display_name or username)[:DISPLAY_NAME_CHARS],
                    role=role,
                    kind=kind,
                    password_hash=passwords.hash_password(password) if password else None,
                    created_at=self._now(),
                    status="active",
                    auth_epoch=0,
                    sign_in_key=new_sign_in_key(),
                )
            )
        )
        return User(int(uid), username, (display_name or username)[:DISPLAY_NAME_CHARS], role, kind)

    def user(self, username: str) -> User | None:
        """The active account of that name (None if there is none, or it is disabled or deleted)."""
        with self._read() as c:
            r = c.execute(
                sa.select(users).where(users.c.username == username.strip(), users.c.status == "active")
            ).first()
        return user_from_row(r) if r else None

    def users(self, include_inactive: bool = False) -> list[User]:
        q = sa.select(users).order_by(users.c.id)
        if not include_inactive:
            q = q.where(users.c.status == "active")
        with self._read() as c:
            return [user_from_row(r) for r in c.execute(q)]

    def has_lead(self) -> bool:
        with self._read() as c:
            return (
                c.execute(sa.select(users.c.id).where(users.c.role == "lead", users.c.status == "active")).first()
                is not None
            )

    # -- the first lead: a one-time token printed on the server console ---------------------------

    def issue_setup_token(self, replace: bool = True) -> str | None:
        """A new one-time token while no lead exists (its hash is kept; the token is shown once).

        ``replace=False`` (an app process starting): where a token was issued already, by another
        replica on the same database or by ``make run``'s command, it stays the one that works and
        None is returned; of replicas starting together exactly one issues it (the key is unique)."""
        if self.has_lead():
            return None
        token = secrets.token_urlsafe(12)
        digest = hashlib.sha256(token.encode()).hexdigest()
        try:
            with self._write() as c:
                if replace:
                    c.execute(settings.delete().where(settings.c.key == "setup_token"))
                elif c.execute(sa.select(settings.c.key).where(settings.c.key == "setup_token")).first():
                    return None
                c.execute(settings.insert().values(key="setup_token", value=digest))
        except sa.exc.IntegrityError:  # another process inserted it first
            return None
        return token

    def has_setup_token(self) -> bool:
        """Whether a setup token waits to be claimed."""
        with self._read() as c:
            return c.execute(sa.select(settings.c.key).where(settings.c.key == "setup_token")).first() is not None

    def claim_setup(self, token: str, username: str, password: str, display_name: str | None = None) -> User:
        with self._write() as c:
            stored = c.execute(sa.select(settings.c.value).where(settings.c.key == "setup_token")).scalar()
            if c.execute(sa.select(users.c.id).where(users.c.role == "lead", users.c.status == "active")).first():
                raise AccessDenied("a lead account exists already; ask them for an account")
            if not stored or not hmac.compare_digest(stored, hashlib.sha256(token.strip().encode()).hexdigest()):
                raise AccessDenied("setup token: does not match the one printed on the server console")
            # One transaction: a refused username or password leaves the token usable.
            lead = self._insert_user(c, username, password, "lead", display_name)
            c.execute(settings.delete().where(settings.c.key == "setup_token"))
        return lead

    # -- passwords and account status --------------------------------------------------------------

    def _account(self, c: sa.Connection, username: str):  # noqa: ANN202 - a users row
        r = c.execute(sa.select(users).where(users.c.username == username.strip())).first()
        if r is None:
            raise StoreError(f"username: no account '{username.strip()}'")
        return r

    def _live_account(self, c: sa.Connection, username: str, deleted: str = ""):  # noqa: ANN202 - a users row
        """The account's row; an error (ending with ``deleted``) if the account is deleted."""
        r = self._account(c, username)
        if r.status == "deleted":
            raise StoreError(f"account '{r.username}' is deleted{deleted}")
        return r

    @staticmethod
    def _update(c: sa.Connection, user_id: int, **values) -> None:
        """Change an account and void its sign-in tokens."""
        c.execute(users.update().where(users.c.id == user_id).values(auth_epoch=users.c.auth_epoch + 1, **values))

    def change_password(self, user: User, current: str, new: str, client: str | None = None) -> None:
        """A user changes their own password (the current one is asked again, behind the sign-in's
        backoff and logged like a sign-in: :meth:`corpus.store.signin.SignIn.check_password_change`)."""
        _check_password(new)
        self.check_password_change(user, current, client)
        with self._write() as c:
            r = self._account(c, user.username)
            if r.status != "active" or r.id != user.id:
                raise AccessDenied("current password: wrong; the password was not changed")
            self._update(c, r.id, password_hash=passwords.hash_password(new))
        log.info("password changed: account %r, client %s", user.username, client or "-")

    def reset_password(self, actor: User | None, username: str, new: str) -> None:
        """A lead sets a new password for an account (e.g. one whose owner forgot it)."""
        require_lead(actor)
        _check_password(new)
        with self._write_as(actor) as c:
            r = self._account(c, username)
            if r.status == "deleted":
                raise StoreError(f"account '{r.username}' is deleted; add a new account instead")
            self._update(c, r.id, password_hash=passwords.hash_password(new))

    def _refuse_last_lead(self, c: sa.Connection, r) -> None:  # noqa: ANN001
        if r.role != "lead" or r.status != "active":
            return
        others = c.execute(
            sa.select(sa.func.count()).where(users.c.role == "lead", users.c.status == "active", users.c.id != r.id)
        ).scalar_one()
        if not others:
            raise StoreError(f"'{r.username}' is the only active lead; add or enable another lead first")

    def disable_user(self, actor: User | None, username: str) -> User:
        """The account can no longer sign in (its labels stay); :meth:`enable_user` undoes it."""
        require_lead(actor)
        with self._write_as(actor) as c:
            r = self._live_account(c, username)
            self._refuse_last_lead(c, r)
            self._update(c, r.id, status="disabled")
            return user_from_row(r)

    def enable_user(self, actor: User | None, username: str) -> User:
        require_lead(actor)
        with self._write_as(actor) as c:
            r = self._live_account(c, username, " and cannot be enabled; add a new account")
            c.execute(users.update().where(users.c.id == r.id).values(status="active"))
            return user_from_row(r)

    def delete_user(self, actor: User | None, username: str) -> str:
        """Delete an account: ``"removed"`` if it left no trace, ``"tombstone"`` if it is kept,
        without password and unable to sign in, because labels, gold, tasks or snapshots name it."""
        require_lead(actor)
        with self._write_as(actor) as c:
            r = self._live_account(c, username, " already")
            self._refuse_last_lead(c, r)
            traces = [
                sa.select(labels.c.id).where(labels.c.coder_id == r.id),
                sa.select(gold.c.id).where(gold.c.decided_by == r.id),
                sa.select(tasks.c.id).where(tasks.c.created_by == r.id),
                sa.select(agreement_snapshots.c.id).where(agreement_snapshots.c.taken_by == r.id),
            ]
            if any(c.execute(q.limit(1)).first() for q in traces):
                self._update(c, r.id, status="deleted", password_hash=None)
                return "tombstone"
            c.execute(task_coders.delete().where(task_coders.c.user_id == r.id))
            c.execute(revoked_tokens.delete().where(revoked_tokens.c.user_id == r.id))
            c.execute(users.delete().where(users.c.id == r.id))
            return "removed"
