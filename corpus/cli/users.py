"""``python -m corpus users add|list|passwd|reset|disable|enable|delete|setup-token``: the accounts of
the label database the app uses (:mod:`corpus.settings`: ``GROUNDWORK_DB_URL``, else the database url
of .streamlit/secrets.toml, else the SQLite file in ``GROUNDWORK_DATA_DIR``).

Whoever runs these on the server acts as the operator, with a lead's rights over accounts;
``passwd`` is the exception: it changes one's own password and asks for the current one. Every
command says what it did; a refusal goes to stderr with exit status 1.
"""

from __future__ import annotations

import argparse
import getpass
import sys


def _store():  # noqa: ANN202
    from corpus.settings import Settings

    return Settings.load().open_store()


def _where(store) -> str:  # noqa: ANN001
    return store.url if not store.url.startswith("sqlite") else store.url.split("///", 1)[-1]


class _Refused(Exception):
    pass


def _new_password(args: argparse.Namespace, whose: str, lines: list[str]) -> str:
    if args.password_stdin:
        if not lines:
            raise _Refused("no new password on stdin")
        return lines.pop(0)
    password = getpass.getpass(f"New password for {whose}: ")
    if getpass.getpass("Again: ") != password:
        raise _Refused("the two passwords differ; nothing was changed")
    return password


def _stdin_lines(args: argparse.Namespace) -> list[str]:
    return [line.rstrip("\r\n") for line in sys.stdin.readlines()] if args.password_stdin else []


def _add(args: argparse.Namespace) -> str:
    store = _store()
    password = _new_password(args, args.username, _stdin_lines(args))
    user = store.create_user(args.username, password, args.role, display_name=args.display_name)
    return f"added {user.role} '{user.username}' to {_where(store)}"


def _list(args: argparse.Namespace) -> str:
    people = _store().users(include_inactive=True)
    if not people:
        return "no accounts yet"
    rows = [("username", "role", "kind", "status")] + [(u.username, u.role, u.kind, u.status) for u in people]
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    return "\n".join("  ".join(v.ljust(w) for v, w in zip(r, widths)).rstrip() for r in rows)


def _passwd(args: argparse.Namespace) -> str:
    store = _store()
    user = store.user(args.username)
    lines = _stdin_lines(args)
    current = (lines.pop(0) if lines else "") if args.password_stdin else getpass.getpass("Current password: ")
    if user is None:
        raise _Refused("current password: wrong; the password was not changed")
    store.change_password(user, current, _new_password(args, user.username, lines))
    return f"changed the password of '{user.username}'; its other sign-ins end"


def _reset(args: argparse.Namespace) -> str:
    store = _store()
    store.reset_password(None, args.username, _new_password(args, args.username, _stdin_lines(args)))
    return f"reset the password of '{args.username}'; its sign-ins end"


def _disable(args: argparse.Namespace) -> str:
    _store().disable_user(None, args.username)
    return f"disabled '{args.username}': it cannot sign in; its labels stay (enable it again with `users enable`)"


def _enable(args: argparse.Namespace) -> str:
    _store().enable_user(None, args.username)
    return f"enabled '{args.username}': it can sign in again"


def _delete(args: argparse.Namespace) -> str:
    if not args.yes:
        if not sys.stdin.isatty():
            raise _Refused("add --yes to delete an account without a question")
        if input(f"Type the username again to delete '{args.username}': ").strip() != args.username:
            raise _Refused("the names differ; nothing was deleted")
    outcome = _store().delete_user(None, args.username)
    if outcome == "removed":
        return f"deleted '{args.username}' (it had no labels, gold or tasks)"
    return (
        f"deleted '{args.username}': it can never sign in again; the account is kept as a tombstone because "
        "labels, gold or tasks name it, and its username stays reserved"
    )


def _setup_token(args: argparse.Namespace) -> str:
    from corpus.store import setup_notice

    store = _store()
    token = store.issue_setup_token()
    if token is None:
        return f"a lead account exists in {_where(store)}: no setup token is needed"
    return setup_notice(token)


def _run(action):  # noqa: ANN001, ANN202
    def run(args: argparse.Namespace) -> int:
        from corpus.store import AccessDenied, StoreError

        try:
            print(action(args))
        except (StoreError, AccessDenied, _Refused) as exc:
            print(f"{args.users_command}: {exc}", file=sys.stderr)
            return 1
        return 0

    return run


def add_users_commands(sub: argparse._SubParsersAction) -> None:
    from corpus.store import ROLES

    p = sub.add_parser("users", help="manage the accounts of the label database")
    users = p.add_subparsers(dest="users_command", required=True)
    stdin_help = "read the password(s) from stdin, one per line, instead of asking"

    p = users.add_parser("add", help="add an account (e.g. the first lead)")
    p.add_argument("username")
    p.add_argument("--role", choices=list(ROLES), default="coder")
    p.add_argument("--display-name")
    p.add_argument("--password-stdin", action="store_true", help=stdin_help)
    p.set_defaults(func=_run(_add))

    p = users.add_parser("list", help="every account with its role, kind and status")
    p.set_defaults(func=_run(_list))

    p = users.add_parser("passwd", help="change your own password (asks for the current one)")
    p.add_argument("username")
    p.add_argument("--password-stdin", action="store_true", help=stdin_help + " (current, then new)")
    p.set_defaults(func=_run(_passwd))

    p = users.add_parser("reset", help="set a new password for an account")
    p.add_argument("username")
    p.add_argument("--password-stdin", action="store_true", help=stdin_help)
    p.set_defaults(func=_run(_reset))

    for name, action, text in (
        ("disable", _disable, "stop an account from signing in (its labels stay)"),
        ("enable", _enable, "let a disabled account sign in again"),
    ):
        p = users.add_parser(name, help=text)
        p.add_argument("username")
        p.set_defaults(func=_run(action))

    p = users.add_parser(
        "setup-token",
        help="while no lead exists: print a one-time token that creates the first "
        "lead in the app (replaces any earlier token)",
    )
    p.set_defaults(func=_run(_setup_token))

    p = users.add_parser("delete", help="delete an account (kept as a tombstone if labels name it)")
    p.add_argument("username")
    p.add_argument("--yes", action="store_true", help="do not ask for confirmation")
    p.set_defaults(func=_run(_delete))
