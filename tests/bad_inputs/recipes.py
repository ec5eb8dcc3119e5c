"""Apply a bad-input recipe (cases.yaml) to a copy of the tiny dataset of tests/helpers.py.

A recipe is a list of steps, each a mapping with one key, applied in order:

- ``json: {file, path, value}``: set a value in a JSON file (``path``: keys and list positions
  joined by dots, e.g. ``participants.0.persona.teamq``); ``file`` may be
  ``sessions/s1/actions.jsonl:3`` for line 3 of a JSON-lines file.
- ``raw: {file, path, text}``: the same with a JSON text fragment as the value (for what YAML
  cannot say: ``NaN``, ``1e400``, 100,000 brackets). ``text`` is a string or a list of
  ``[piece, times]`` pairs, e.g. ``[["[", 100000], ["]", 100000]]``.
- ``drop: {file, path}``: remove a key.
- ``write: {file, text}``: replace a file's text (``text`` as in ``raw``); ``append`` adds to it.
- ``replace: {file, old, new}``: replace bytes (strings given as Latin-1, so ``"\\xe4"`` is the
  byte 0xe4).
- ``encode: {file, encoding}``: re-encode a file's text (``utf-16``, ``latin-1``).
- ``remove: {file}``, ``mkdir: {path}``, ``copy: {src, dest}`` (``src`` in tests/bad_inputs/files),
  ``sparse: {file, size}`` (grow a file to ``size`` bytes without writing them).
- ``zip: {...}`` (last): the dataset is zipped as ``ds.zip`` under a top folder ``ds/`` and the
  case validates the archive; the mapping damages it (:func:`damage_zip`).
"""

from __future__ import annotations

import json
import shutil
import struct
import zipfile
from pathlib import Path
from typing import Any

FILES = Path(__file__).resolve().parent / "files"


def fragment(text: str | list) -> str:
    if isinstance(text, str):
        return text
    return "".join(piece * times for piece, times in text)


def _split(file: str) -> tuple[str, int | None]:
    name, _, line = file.partition(":")
    return name, int(line) if line else None


def _edit_json(root: Path, file: str, edit) -> None:
    """Parse a JSON file (or one line of a JSON-lines file), ``edit`` the object, write it back.

    ``edit`` returns the new text of the object, so a raw fragment can be spliced in.
    """
    name, line = _split(file)
    path = root / name
    if line is None:
        path.write_text(edit(json.loads(path.read_text(encoding="utf-8"))), encoding="utf-8")
        return
    rows = path.read_text(encoding="utf-8").splitlines()
    rows[line - 1] = edit(json.loads(rows[line - 1]))
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")


def _keys(path: str | tuple | list) -> list[Any]:
    """A path as keys: a tuple or list as it is, a dotted string split (digits are positions)."""
    if isinstance(path, (tuple, list)):
        return list(path)
    return [int(k) if k.lstrip("-").isdigit() else k for k in str(path).split(".")]


def set_value(obj: Any, path: str | tuple | list, value: Any) -> None:
    *parents, last = _keys(path)
    for k in parents:
        obj = obj[k]
    obj[last] = value


_MARK = "\u0000fragment\u0000"


def with_fragment(obj: Any, path: str | tuple | list, text: str) -> str:
    """The JSON text of ``obj`` with the value at ``path`` replaced by the raw JSON ``text``."""
    set_value(obj, path, _MARK)
    return json.dumps(obj, ensure_ascii=False).replace(json.dumps(_MARK), text, 1)


def _drop(obj: Any, path: str) -> None:
    *parents, last = _keys(path)
    for k in parents:
        obj = obj[k]
    del obj[last]


def apply(root: Path, steps: list[dict]) -> Path:
    """Apply ``steps`` to the dataset at ``root``; the path to validate (the folder or ds.zip)."""
    target = root
    for step in steps:
        ((op, arg),) = step.items()
        if op == "json":
            _edit_json(
                root,
                arg["file"],
                lambda o, arg=arg: (set_value(o, arg["path"], arg["value"]), json.dumps(o, ensure_ascii=False))[1],
            )
        elif op == "raw":
            _edit_json(root, arg["file"], lambda o, arg=arg: with_fragment(o, arg["path"], fragment(arg["text"])))
        elif op == "drop":
            _edit_json(
                root, arg["file"], lambda o, arg=arg: (_drop(o, arg["path"]), json.dumps(o, ensure_ascii=False))[1]
            )
        elif op in ("write", "append"):
            path = root / arg["file"]
            path.parent.mkdir(parents=True, exist_ok=True)
            with open(path, "w" if op == "write" else "a", encoding="utf-8", newline="") as f:
                f.write(fragment(arg["text"]))
        elif op == "replace":
            path = root / arg["file"]
            data = path.read_bytes()
            old, new = arg["old"].encode("latin-1"), arg["new"].encode("latin-1")
            assert old in data, f"{old!r} not in {arg['file']}"
            path.write_bytes(data.replace(old, new, 1))
        elif op == "encode":
            path = root / arg["file"]
            path.write_bytes(path.read_text(encoding="utf-8").encode(arg["encoding"]))
        elif op == "remove":
            path = root / arg["file"]
            shutil.rmtree(path) if path.is_dir() else path.unlink()
        elif op == "mkdir":
            (root / arg["path"]).mkdir(parents=True, exist_ok=True)
        elif op == "copy":
            shutil.copy(FILES / arg["src"], root / arg["dest"])
        elif op == "sparse":
            with open(root / arg["file"], "r+b") as f:
                f.truncate(int(arg["size"]))
        elif op == "zip":
            target = damage_zip(zip_dataset(root, root.parent / "ds.zip"), arg or {})
        else:
            raise ValueError(f"unknown recipe step {op!r}")
    return target


def zip_dataset(src: Path, dest: Path) -> Path:
    with zipfile.ZipFile(dest, "w", zipfile.ZIP_DEFLATED) as zf:
        for p in sorted(src.rglob("*")):
            if p.is_file():
                zf.write(p, Path("ds") / p.relative_to(src))
    return dest


def _central_entry(data: bytes, member: str) -> int:
    """Offset of ``member``'s entry in the archive's central directory."""
    pos = 0
    while (pos := data.find(b"PK\x01\x02", pos)) >= 0:
        n = struct.unpack("<H", data[pos + 28 : pos + 30])[0]
        if data[pos + 46 : pos + 46 + n].decode() == member:
            return pos
        pos += 4
    raise KeyError(member)


def damage_zip(archive: Path, how: dict) -> Path:
    """Damage an archive as ``how`` says:

    - ``flip: {member, at}``: invert a byte of a member's compressed data;
    - ``declare_size: {member, size}``: a central-directory uncompressed size that lies;
    - ``method: {member, value}``: another compression method number;
    - ``encrypted: member``: set the member's "encrypted" flag;
    - ``cut: fraction``: keep only the first part of the archive;
    - ``add: {name, text, ...}``: add a member (``times`` repeats the text; ``store`` leaves it
      uncompressed).
    """
    data = bytearray(archive.read_bytes())
    if "flip" in how:
        member, at = how["flip"]["member"], how["flip"]["at"]
        with zipfile.ZipFile(archive) as zf:
            info = zf.getinfo(member)
        off = info.header_offset
        n, m = struct.unpack("<HH", data[off + 26 : off + 30])
        data[off + 30 + n + m + at] ^= 0xFF
    if "declare_size" in how:
        entry = _central_entry(data, how["declare_size"]["member"])
        data[entry + 24 : entry + 28] = struct.pack("<I", how["declare_size"]["size"])
    if "method" in how:
        member = how["method"]["member"]
        entry = _central_entry(data, member)
        data[entry + 10 : entry + 12] = struct.pack("<H", how["method"]["value"])
        with zipfile.ZipFile(archive) as zf:
            off = zf.getinfo(member).header_offset
        data[off + 8 : off + 10] = struct.pack("<H", how["method"]["value"])
    if "encrypted" in how:
        entry = _central_entry(data, how["encrypted"])
        flags = struct.unpack("<H", data[entry + 8 : entry + 10])[0]
        data[entry + 8 : entry + 10] = struct.pack("<H", flags | 0x1)
    if "cut" in how:
        data = data[: int(len(data) * how["cut"])]
    archive.write_bytes(bytes(data))
    if "add" in how:
        add = how["add"]
        method = zipfile.ZIP_STORED if add.get("store") else zipfile.ZIP_DEFLATED
        with zipfile.ZipFile(archive, "a", method) as zf:
            with zf.open(add["name"], "w", force_zip64=True) as f:
                chunk = fragment(add["text"]).encode("utf-8")
                for _ in range(int(add.get("times", 1))):
                    f.write(chunk)
    return archive
