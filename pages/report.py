"""Report: the paper's results for the current dataset as one file to keep, send or print. A
signed-in user builds it with the labels of the team's closed tasks (through the server's queue); a
visitor who is not signed in gets the server's own report of a dataset it offers, built once for
everyone."""

from components.auth import signed_in_user
from components.dataset import require_screen, synthetic_banner
from components.label_source import revealed_gold
from components.report import (
    build_requested,
    building,
    command,
    downloads,
    keep,
    name_of,
    report_intro,
    server_downloads,
    server_report_coming,
    server_report_requested,
)
from reports import prebuilt, reproduction, screen
from services.datasets import current_source
from services.jobs import owner
from services.settings import report_refusal

data = require_screen("report", "Reproduction report")
synthetic_banner(data)
report_intro(data)
user = signed_in_user()
refusal = report_refusal(user)
if refusal is None:
    build, pdf = build_requested(data)
    if build:
        with building() as progress:
            files = screen.build(
                data,
                gold=revealed_gold(data) if reproduction.report_of(data).gold else None,
                command=command(data),
                pdf=pdf,
                who=owner(user),
                name=name_of(data),
                step=progress.step,
                waiting=progress.waiting,
            )
            keep(data, files.html, files.tables, files.pdf, files.started, files.printed)
    downloads(data)
else:
    kept = prebuilt.kept(data.content_hash)
    being_built = kept is None and prebuilt.building(data.content_hash)
    if being_built:
        server_report_coming(lambda: prebuilt.kept(data.content_hash) is not None)
    elif kept is None and server_report_requested(data, refusal, offered=not current_source().uploaded):
        with building("Building the server's report (once, for everyone)...") as progress:
            kept = prebuilt.build_and_keep(data, command(data), waiting=progress.waiting, step=progress.step)
    if kept is not None:
        server_downloads(data, *kept.read(), kept.built_at, kept.seconds)
