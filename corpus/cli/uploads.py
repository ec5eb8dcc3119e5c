"""``python -m corpus uploads list|reclaim``: the uploaded datasets the server keeps (in the data
directory of :mod:`corpus.settings`), and deleting old ones.

``reclaim`` deletes the uploads named, or those older than ``--older-than DAYS``, and always what a
stopped server may have left in ``staging/`` and ``uploads/``. A coding task on a deleted upload
keeps its labels; its items show again once the same dataset is uploaded again.
"""

from __future__ import annotations

import argparse
import sys
from datetime import timedelta


def _uploads():  # noqa: ANN202
    from corpus.server.uploads import Uploads
    from corpus.settings import Settings

    settings = Settings.load()
    return settings, Uploads(settings.data_dir)


def _list(args: argparse.Namespace) -> int:
    from corpus.server.uploads import mib

    settings, uploads = _uploads()
    kept = uploads.list()
    rows = [("key", "name", "format", "size", "files", "uploaded", "by")]
    rows += [
        (u.key, u.name, u.fmt or "dataset", mib(u.bytes), f"{u.members:,}", u.uploaded_at, u.uploaded_by) for u in kept
    ]
    if kept:
        widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
        print("\n".join("  ".join(v.ljust(w) for v, w in zip(r, widths)).rstrip() for r in rows))
    else:
        print(f"no uploads kept in {settings.data_dir}")
    used, files = uploads.usage()
    print(
        f"\n{len(kept)} upload(s): {mib(used)} of {mib(int(settings.uploads_total_bytes))}, "
        f"{files:,} of {settings.uploads_total_members:,} files",
        file=sys.stderr,
    )
    stray = uploads.leftovers()
    if stray:
        print(
            f"{len(stray)} leftover(s) from interrupted uploads (`uploads reclaim` deletes them): "
            + ", ".join(p.name for p in stray),
            file=sys.stderr,
        )
    return 0


def _reclaim(args: argparse.Namespace) -> int:
    from corpus.server.uploads import mib

    _, uploads = _uploads()
    known = {u.key for u in uploads.list()}
    unknown = [k for k in args.keys if k not in known]
    if unknown:
        print(
            f"reclaim: no kept upload {', '.join(repr(k) for k in unknown)} (see `uploads list`); nothing was deleted",
            file=sys.stderr,
        )
        return 1
    older = timedelta(days=args.older_than) if args.older_than is not None else None
    gone, stray = uploads.reclaim(args.keys, older_than=older)
    for up in gone:
        print(f"deleted {up.key} ({up.name}, {mib(up.bytes)}, uploaded {up.uploaded_at} by {up.uploaded_by})")
    for path in stray:
        print(f"deleted leftover {path.parent.name}/{path.name}")
    if not gone and not stray:
        print("nothing to reclaim")
    return 0


def add_uploads_commands(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("uploads", help="the uploaded datasets the server keeps")
    uploads = p.add_subparsers(dest="uploads_command", required=True)
    p = uploads.add_parser("list", help="every kept upload with its size, and the quota used")
    p.set_defaults(func=_list)
    p = uploads.add_parser("reclaim", help="delete kept uploads (by key or age) and leftovers of interrupted ones")
    p.add_argument("keys", nargs="*", help="the uploads to delete (the key column of `uploads list`)")
    p.add_argument("--older-than", type=float, metavar="DAYS", help="delete every upload older than DAYS days")
    p.set_defaults(func=_reclaim)
