"""Gold: the lead's decisions per item (append-only, with provenance), their history, consensus,
the coders' feedback after the reveal, and the revealed gold the analysis pages read."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import pandas as pd
import sqlalchemy as sa

from corpus.consensus import as_share, majority, reaches
from corpus.limits import NOTE_CHARS, too_long
from corpus.store.access import require_feedback, require_lead, require_see_gold
from corpus.store.base import StoreBase, StoreError, Task, User, inserted_key
from corpus.store.tables import ERROR_TYPES, PROVENANCE, codebook_rows, gold, settings, task_items, tasks, users


@dataclass(frozen=True)
class FeedbackCounts:
    """A coder's labels in a revealed task against gold: ``coded`` items, ``with_gold`` of them
    with a gold label, ``agree`` of those where gold is the coder's label."""

    coded: int
    with_gold: int
    agree: int

    @property
    def without_gold(self) -> int:
        return self.coded - self.with_gold


def _latest_per_item(*where):  # noqa: ANN002, ANN202 - SQL conditions in, a subquery out
    """The id of each item's latest gold decision (the one that counts)."""
    return (
        sa.select(sa.func.max(gold.c.id).label("id")).where(*where).group_by(gold.c.task_id, gold.c.item_id).subquery()
    )


# The note that accepting a majority wrote before version 4 ("2 of 3 coders"): not the lead's words.
_COUNT_NOTE = r"\d+ of \d+ coders"


class Gold(StoreBase):
    if TYPE_CHECKING:  # the other parts of Store this one uses

        def task(self, task_id: int) -> Task: ...
        def labels(self, user: User, task_id: int) -> pd.DataFrame: ...
        def my_labels(self, user: User, task_id: int) -> pd.DataFrame: ...

    def set_gold(
        self,
        actor: User,
        task_id: int,
        item_id: str,
        code: str,
        provenance: str = "adjudicated",
        note: str = "",
        error_type: str | None = None,
        flag_codebook: bool = False,
    ) -> int:
        require_lead(actor)
        t = self.task(task_id)
        if code not in t.codebook.code_ids:
            raise StoreError(f"code: '{code}' is not in codebook {t.codebook.id} v{t.codebook.version}")
        if provenance not in PROVENANCE:
            raise StoreError(f"provenance: '{provenance}' is not one of {', '.join(PROVENANCE)}")
        if (why := too_long("note", note or "", NOTE_CHARS)) is not None:
            raise StoreError(why)
        if error_type is not None and error_type not in ERROR_TYPES:
            raise StoreError(f"error_type: '{error_type}' is not one of {', '.join(ERROR_TYPES)}")
        with self._write_as(actor) as c:
            return int(
                inserted_key(
                    c.execute(
                        gold.insert().values(
                            task_id=task_id,
                            item_id=item_id,
                            code=code,
                            provenance=provenance,
                            note=note or "",
                            error_type=error_type,
                            flag_codebook=bool(flag_codebook),
                            decided_by=actor.id,
                            created_at=self._now(),
                        )
                    )
                )
            )

    def _current_gold(self, task_id: int) -> pd.DataFrame:
        latest = _latest_per_item(gold.c.task_id == task_id)
        q = (
            sa.select(
                gold.c.item_id,
                gold.c.code,
                gold.c.provenance,
                gold.c.note,
                gold.c.error_type,
                gold.c.flag_codebook,
                gold.c.created_at,
            )
            .join(latest, latest.c.id == gold.c.id)
            .order_by(gold.c.item_id)
        )
        with self._read() as c:
            return pd.read_sql(q, c)

    def gold(self, user: User, task_id: int) -> pd.DataFrame:
        """Current gold per item: leads always, viewers once revealed, coders never (see :meth:`feedback`)."""
        require_see_gold(user, self.task(task_id))
        return self._current_gold(task_id)

    def gold_history(self, user: User, task_id: int, item_id: str | None = None) -> pd.DataFrame:
        """Every gold decision, oldest first: item_id, code, provenance, note, error_type,
        flag_codebook, decided_by (username), created_at, and the code and provenance of the
        decision it replaced (empty for an item's first)."""
        require_see_gold(user, self.task(task_id))
        earlier: dict[str, Any] = dict(partition_by=gold.c.item_id, order_by=gold.c.id)
        q = (
            sa.select(
                gold.c.id,
                gold.c.item_id,
                gold.c.code,
                gold.c.provenance,
                gold.c.note,
                gold.c.error_type,
                gold.c.flag_codebook,
                users.c.username.label("decided_by"),
                gold.c.created_at,
                sa.func.lag(gold.c.code).over(**earlier).label("replaced_code"),
                sa.func.lag(gold.c.provenance).over(**earlier).label("replaced_provenance"),
            )
            .join(users, users.c.id == gold.c.decided_by)
            .where(gold.c.task_id == task_id)
            .order_by(gold.c.id)
        )
        if item_id is not None:
            q = q.where(gold.c.item_id == item_id)
        with self._read() as c:
            history = pd.read_sql(q, c)
        replaced = ["replaced_code", "replaced_provenance"]
        history[replaced] = history[replaced].astype(object).fillna("")
        return history

    # -- the dataset's reference labels --------------------------------------------------------------

    @staticmethod
    def _reference_key(dataset_hash: str) -> str:
        return f"reference_gold:{dataset_hash[:48]}"

    def set_reference(self, actor: User, task_id: int, on: bool = True) -> None:
        """Make the task's gold the reference grounding acts of its dataset (the analysis pages' default
        label source, when it covers enough items), or stop it being so. One task per dataset: another
        task marked later takes its place. Leads only; the task must name its dataset's content hash."""
        require_lead(actor)
        task = self.task(task_id)
        if not task.dataset_hash:
            raise StoreError(
                f"task '{task.name}' was created before tasks named their dataset: it cannot be a reference"
            )
        key = self._reference_key(task.dataset_hash)
        with self._write_as(actor) as c:
            current = c.execute(sa.select(settings.c.value).where(settings.c.key == key)).scalar()
            if on and current != str(task_id):
                c.execute(settings.delete().where(settings.c.key == key))
                c.execute(settings.insert().values(key=key, value=str(task_id)))
            elif not on and current == str(task_id):
                c.execute(settings.delete().where(settings.c.key == key))

    def reference_task(self, dataset_hash: str) -> int | None:
        """The task whose gold a lead marked as the dataset's reference labels, or None."""
        with self._read() as c:
            value = c.execute(
                sa.select(settings.c.value).where(settings.c.key == self._reference_key(dataset_hash))
            ).scalar()
        return int(value) if value is not None else None

    def gold_version(self, dataset_hash: str, dataset_name: str | None = None) -> tuple[int, int, int, int]:
        """What :meth:`revealed_gold` depends on, in one cheap query: (revealed tasks on the dataset,
        their gold decisions, the newest decision's id, the reference task or 0). Gold is append-only
        and a revealed task is closed, so the same version means the same revealed gold."""
        same = tasks.c.dataset_hash == dataset_hash
        if dataset_name is not None:
            same = same | (tasks.c.dataset_hash.is_(None) & (tasks.c.dataset == dataset_name))
        revealed = sa.select(tasks.c.id).where(same, tasks.c.phase == "revealed")
        q = sa.select(
            sa.select(sa.func.count()).select_from(revealed.subquery()).scalar_subquery(),
            sa.func.count(gold.c.id),
            sa.func.coalesce(sa.func.max(gold.c.id), 0),
        ).where(gold.c.task_id.in_(revealed))
        with self._read() as c:
            n_tasks, n_gold, newest = c.execute(q).one()
        return int(n_tasks), int(n_gold), int(newest), self.reference_task(dataset_hash) or 0

    def revealed_gold(
        self, dataset_hash: str, scheme: str | None = None, dataset_name: str | None = None
    ) -> pd.DataFrame:
        """The gold of every closed (revealed) task on the dataset with this content hash: what the
        analysis pages use. Tasks created before tasks carried a hash are matched by
        ``dataset_name``. Anyone may read it; a task still being coded or adjudicated contributes
        nothing. Columns: task_id, task, scheme, session_id, action_index, item_id, code, provenance,
        reference (whether a lead marked the task's gold as the dataset's reference labels)."""
        latest = _latest_per_item()
        same = tasks.c.dataset_hash == dataset_hash
        if dataset_name is not None:
            same = same | (tasks.c.dataset_hash.is_(None) & (tasks.c.dataset == dataset_name))
        q = (
            sa.select(
                tasks.c.id.label("task_id"),
                tasks.c.name.label("task"),
                codebook_rows.c.scheme,
                task_items.c.session_id,
                task_items.c.action_index,
                gold.c.item_id,
                gold.c.code,
                gold.c.provenance,
            )
            .join(latest, latest.c.id == gold.c.id)
            .join(tasks, tasks.c.id == gold.c.task_id)
            .join(codebook_rows, codebook_rows.c.id == tasks.c.codebook_id)
            .join(task_items, (task_items.c.task_id == gold.c.task_id) & (task_items.c.item_id == gold.c.item_id))
            .where(same, tasks.c.phase == "revealed")
            .order_by(tasks.c.id, task_items.c.position)
        )
        if scheme is not None:
            q = q.where(codebook_rows.c.scheme == scheme)
        with self._read() as c:
            out = pd.read_sql(q, c)
        return out.assign(reference=out["task_id"] == (self.reference_task(dataset_hash) or -1))

    def accept_consensus(
        self, actor: User, task_id: int, threshold: Fraction | float | str = 1, min_coders: int = 2
    ) -> int:
        """Make gold of items without gold whose majority label (:func:`corpus.consensus.majority`,
        human coders only) is given by at least ``threshold`` of the item's coders, compared as exact
        fractions (2 of 3 reaches "2/3"; see :func:`corpus.consensus.reaches`).

        ``threshold=1`` accepts unanimous items (provenance ``unanimous``); lower thresholds record
        ``majority``. Items with fewer than ``min_coders`` labels are left alone. Returns how many.
        """
        require_lead(actor)
        share = as_share(threshold)
        cur = self.labels(actor, task_id)
        cur = cur[cur["coder_kind"] == "human"]
        have = set(self._current_gold(task_id)["item_id"])
        best = majority(cur[~cur["item_id"].isin(have)], keys=["item_id"])
        rows = []
        for item, code, k, n in best[["item_id", "code", "k", "n_coders"]].itertuples(index=False):
            if n < min_coders or not reaches(k, n, share):
                continue
            rows.append(
                {
                    "task_id": task_id,
                    "item_id": item,
                    "code": code,
                    "provenance": "unanimous" if k == n else "majority",
                    "note": "",  # the lead's words to the coders; how many agreed is in the labels
                    "error_type": None,
                    "flag_codebook": False,
                    "decided_by": actor.id,
                    "created_at": self._now(),
                }
            )
        with self._write_as(actor) as c:
            if rows:
                c.execute(gold.insert(), rows)
        return len(rows)

    def _mine_with_gold(self, user: User, task_id: int) -> tuple[int, pd.DataFrame]:
        """(this coder's number of labels, their labels on the items with gold, beside the gold).
        Nothing that tells how other coders labelled: not the provenance (unanimous, majority,
        adjudicated), nor the count a majority decision once wrote as its note."""
        require_feedback(user, self.task(task_id))
        mine = self.my_labels(user, task_id)[["item_id", "code", "note"]].rename(
            columns={"code": "my_code", "note": "my_note"}
        )
        g = self._current_gold(task_id)
        g["note"] = g["note"].where(~((g["provenance"] == "majority") & g["note"].str.fullmatch(_COUNT_NOTE)), "")
        g = g[["item_id", "code", "note", "error_type"]].rename(columns={"code": "gold_code", "note": "lead_note"})
        return len(mine), mine.merge(g, on="item_id")

    def feedback(self, user: User, task_id: int) -> pd.DataFrame:
        """After the reveal, if the lead shows it: the items where gold differs from this coder's
        label, with the lead's note. Nothing about any other coder."""
        both = self._mine_with_gold(user, task_id)[1]
        return both[both["my_code"] != both["gold_code"]].reset_index(drop=True)

    def feedback_counts(self, user: User, task_id: int) -> FeedbackCounts:
        """Under the same rule as :meth:`feedback`: how many items this coder labelled, how many of
        them have gold, and on how many of those gold agrees with the coder (an item without gold
        agrees with nothing)."""
        coded, both = self._mine_with_gold(user, task_id)
        return FeedbackCounts(coded, len(both), int((both["my_code"] == both["gold_code"]).sum()))
