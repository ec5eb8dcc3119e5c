"""Which file of an export folder is what: action logs, the platform's export files, annotations,
checkpoints, ASCII maps, landmark names."""

from __future__ import annotations

from pathlib import Path

# The files the platform's export script writes: <name>_<first 8 of session_id><suffix>.
BUNDLE_SUFFIX = "_actions_and_annotations.json"
USER_ACTIONS_SUFFIX = "_user_actions.json"
KINDS = ("logs", "bundles", "user_actions", "annotations", "checkpoints", "maps", "names")


def export_kind(path: Path) -> str | None:
    """``bundles`` or ``user_actions`` for the export script's two files (by their names), else None."""
    name = path.name.lower()
    if name.endswith(BUNDLE_SUFFIX):
        return "bundles"
    if name.endswith(USER_ACTIONS_SUFFIX):
        return "user_actions"
    return None


def _file_kind(p: Path) -> str | None:
    """What one file of an export folder is (one of :data:`KINDS`), by its name and suffix; None
    for a file the import does not read."""
    name = p.name.lower()
    suffix = p.suffix.lower()
    if (kind := export_kind(p)) is not None:
        return kind
    if ("checkpoint" in name or "in_session" in name) and suffix in (".jsonl", ".json", ".csv"):
        # the platform keeps checkpoint answers in its in_session_annotations table
        return "checkpoints"
    if "annotation" in name and suffix == ".json":
        return "annotations"
    if "landmark" in name and "name" in name and suffix in (".json", ".txt"):
        return "names"
    if suffix == ".jsonl":
        return "logs"
    if suffix == ".txt" and p.parent.name != "files" and _looks_like_ascii_map(p):
        return "maps"
    return None


def classify_files(folder: Path) -> dict[str, list[Path]]:
    """The files of an export folder by role: logs, bundles and user_actions (the export script's
    files), annotations, checkpoints, maps, names."""
    out: dict[str, list[Path]] = {kind: [] for kind in KINDS}
    for p in sorted(folder.rglob("*")):
        if not p.is_file() or any(part.startswith((".", "__MACOSX")) for part in p.relative_to(folder).parts):
            continue
        kind = _file_kind(p)
        if kind is not None:
            out[kind].append(p)
    return out


def _looks_like_ascii_map(path: Path) -> bool:
    try:
        head = path.read_bytes()[:200_000].decode("utf-8", errors="replace")
    except OSError:
        return False
    body = set(head) - {"\n", "\r"}
    return bool(body) and body <= set("#.SF \t") and "S" in body
