"""Which file of an export folder is what: action logs, annotations, checkpoints, ASCII maps,
landmark names."""

from __future__ import annotations

from pathlib import Path


def classify_files(folder: Path) -> dict[str, list[Path]]:
    """The files of an export folder by role: logs, annotations, checkpoints, maps, names."""
    out: dict[str, list[Path]] = {"logs": [], "annotations": [], "checkpoints": [], "maps": [], "names": []}
    for p in sorted(folder.rglob("*")):
        if not p.is_file() or any(part.startswith((".", "__MACOSX")) for part in p.relative_to(folder).parts):
            continue
        name = p.name.lower()
        if "checkpoint" in name and p.suffix.lower() in (".jsonl", ".json", ".csv"):
            out["checkpoints"].append(p)
        elif "annotation" in name and p.suffix.lower() == ".json":
            out["annotations"].append(p)
        elif "landmark" in name and "name" in name and p.suffix.lower() in (".json", ".txt"):
            out["names"].append(p)
        elif p.suffix.lower() == ".jsonl":
            out["logs"].append(p)
        elif p.suffix.lower() == ".txt" and p.parent.name != "files" and _looks_like_ascii_map(p):
            out["maps"].append(p)
    return out


def _looks_like_ascii_map(path: Path) -> bool:
    try:
        head = path.read_bytes()[:200_000].decode("utf-8", errors="replace")
    except OSError:
        return False
    body = set(head) - {"\n", "\r"}
    return bool(body) and body <= set("#.SF \t") and "S" in body
