"""Labels coded elsewhere (a model, another tool) imported from a CSV file, all or nothing.

Every problem is named by file, line and column, and nothing is written unless every row is
good: text that is not UTF-8, a field longer than Python's csv limit (131,072 characters), a
malformed line, missing columns, unknown items, codes not in the task's codebook, unknown coders
(unless they are to be created, e.g. a model), and duplicate (item, coder) rows. A label is its
text: "NA", "NaN", "None" or "null" is a code like any other (accepted if the codebook has it);
only an empty label cell means "no label", and such rows are counted, not imported.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from typing import TYPE_CHECKING

from corpus.limits import LABELS_CSV_BYTES
from corpus.store.access import require_lead
from corpus.store.agreement import account_items
from corpus.store.base import StoreBase, StoreError, Task, User
from corpus.store.labels import hold_task
from corpus.store.tables import label_row, labels, max_chars, recount_labels, task_coders, users

if TYPE_CHECKING:
    import pandas as pd

FIELD_LIMIT = 131_072  # Python's csv.field_size_limit() default
MAX_PROBLEMS = 50
_BOM = b"\xef\xbb\xbf"


@dataclass(frozen=True)
class LabelImport:
    n_labels: int
    n_missing: int  # rows with an empty label cell: no label, not imported
    new_coders: tuple[str, ...]

    def summary(self) -> str:
        text = f"{self.n_labels} labels"
        if self.n_missing:
            text += f" ({self.n_missing} rows with an empty label cell had no label and were left out)"
        if self.new_coders:
            text += f"; new coders: {', '.join(self.new_coders)}"
        return text


def decode(data: bytes | str, file: str) -> str:
    """The file as text, or an error naming the line of the first byte that is not UTF-8."""
    if isinstance(data, str):
        return data
    body = data[len(_BOM) :] if data.startswith(_BOM) else data
    try:
        return body.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = body.count(b"\n", 0, exc.start) + 1
        column = exc.start - body.rfind(b"\n", 0, exc.start)
        raise StoreError(
            f"{file} line {line}: byte 0x{body[exc.start]:02x} at position {column} is not UTF-8 text; "
            "save the file as UTF-8"
        ) from None


def read_rows(text: str, file: str, columns: tuple[str, ...]) -> list[tuple[int, dict[str, str]]]:
    """(line number, row) for every row, after checking the header has ``columns``."""
    if not text.strip():
        raise StoreError(f"{file}: the file is empty")
    # strict: a quote left open is an error at its line, not the rest of the file read as one field
    reader = csv.DictReader(io.StringIO(text, newline=""), strict=True)
    rows: list[tuple[int, dict[str, str]]] = []
    start = 1
    try:
        header = reader.fieldnames or []
        missing = [c for c in columns if c not in header]
        if missing:
            raise StoreError(f"{file}: missing column(s) {', '.join(missing)} (found: {', '.join(header) or 'none'})")
        while True:
            start = reader.line_num + 1
            row = next(reader, None)
            if row is None:
                break
            rows.append((reader.line_num, row))  # the line a record ends on (its only line, as a rule)
    except csv.Error as exc:
        why = (
            f"a field is longer than {FIELD_LIMIT:,} characters"
            if "field limit" in str(exc)
            else f"not readable as CSV ({exc})"
        )
        raise StoreError(f"{file} line {start}: {why}") from None
    return rows


class CsvImport(StoreBase):
    if TYPE_CHECKING:  # the other parts of Store this one uses

        def task(self, task_id: int) -> Task: ...
        def items(self, task_id: int) -> pd.DataFrame: ...
        def users(self, include_inactive: bool = False) -> list[User]: ...

    def import_labels_csv(
        self,
        actor: User,
        task_id: int,
        data: bytes | str,
        file: str = "labels.csv",
        item_col: str = "item",
        coder_col: str = "coder",
        label_col: str = "label",
        create_coders: bool = False,
        coder_kind: str = "external",
    ) -> LabelImport:
        """Import (item, coder, label) rows as labels of a task, all or nothing (see the module)."""
        require_lead(actor)
        t = self.task(task_id)
        if t.phase == "revealed":
            raise StoreError(f"task '{t.name}' is closed: the labels have been revealed")
        if len(data) > LABELS_CSV_BYTES:
            raise StoreError(
                f"nothing imported: {file} is {len(data) / 2**20:.1f} MiB; a label file is at most "
                f"{LABELS_CSV_BYTES // 2**20} MiB"
            )
        rows = read_rows(decode(data, file), file, (item_col, coder_col, label_col))
        items = set(self.items(task_id)["item_id"])
        known = {u.username: u for u in self.users(include_inactive=True)}
        longest = max_chars(users.c.username)
        problems: list[str] = []
        good: list[tuple[str, str, str]] = []
        seen: dict[tuple[str, str], int] = {}
        n_missing = 0
        for lineno, r in rows:
            item, coder, code = ((r.get(col) or "").strip() for col in (item_col, coder_col, label_col))
            at = f"{file} line {lineno}"
            if not code:
                n_missing += 1
                continue
            if item not in items:
                problems.append(f"{at}, column {item_col}: '{item[:80]}' is not an item of task '{t.name}'")
            if code not in t.codebook.code_ids:
                problems.append(
                    f"{at}, column {label_col}: '{code[:80]}' is not in codebook {t.codebook.id} v{t.codebook.version}"
                )
            if not coder:
                problems.append(f"{at}, column {coder_col}: empty")
            elif len(coder) > longest:
                problems.append(f"{at}, column {coder_col}: longer than {longest} characters")
            elif coder not in known and not create_coders:
                problems.append(f"{at}, column {coder_col}: unknown coder '{coder}'")
            elif coder in known and known[coder].status == "deleted":
                problems.append(f"{at}, column {coder_col}: the account '{coder}' is deleted")
            key = (item, coder)
            if key in seen:
                problems.append(f"{at}: duplicate of line {seen[key]} (item '{item[:80]}', coder '{coder[:80]}')")
            seen[key] = lineno
            good.append((item, coder, code))
        if not rows:
            problems.append(f"{file}: no rows below the header")
        elif not good and not problems:
            problems.append(f"{file}: no labels: the label cell of every row ({n_missing}) is empty")
        if problems:
            more = f"\n... and {len(problems) - MAX_PROBLEMS} more" if len(problems) > MAX_PROBLEMS else ""
            raise StoreError("nothing imported:\n" + "\n".join(problems[:MAX_PROBLEMS]) + more)
        new_coders = tuple(sorted({k for _, k, _ in good} - set(known)))
        with self._write_as(actor) as c:
            # The task's turn first: the labels get their ids, and the count is made, while no other
            # writer of the task's labels is between its own ids and its commit.
            hold_task(c, task_id)
            ids = {name: u.id for name, u in known.items()}
            for name in new_coders:
                ids[name] = self._insert_user(c, name, None, "coder", kind=coder_kind).id
            for name in sorted({k for _, k, _ in good}):
                if not self._is_assigned(c, task_id, ids[name]):
                    c.execute(task_coders.insert().values(task_id=task_id, user_id=ids[name]))
            now = self._now()
            c.execute(
                labels.insert(),
                [label_row(task_id, i, ids[k], code, t.codebook.version, "import", now) for i, k, code in good],
            )
            recount_labels(c, task_id)
            account_items(c, task_id, (i for i, _, _ in good))
        return LabelImport(len(good), n_missing, new_coders)

    @staticmethod
    def _is_assigned(c, task_id: int, user_id: int) -> bool:  # noqa: ANN001
        return (
            c.execute(
                task_coders.select().where((task_coders.c.task_id == task_id) & (task_coders.c.user_id == user_id))
            ).first()
            is not None
        )
