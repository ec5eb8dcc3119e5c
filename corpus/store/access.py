"""Who may see and do what, in one place. Every read and write of the store asks these rules with
the acting user; the pages only mirror them.

- **Leads** see everything and decide everything. ``None`` as the actor is the server's operator
  at the command line, who has a lead's rights over accounts.
- **Coders** see their own labels, always, and nothing of another coder's: not while coding
  (blind coding), not during adjudication, not after the reveal. Their labels freeze when
  adjudication starts. After the reveal they see what the lead chose for the task: nothing, or
  the items where gold differs from their own label, with the lead's note. Shared agreement
  numbers reach them only as snapshots the lead takes (:mod:`corpus.store.sharing`).
- **Viewers** write nothing; they may read a task's labels and gold once it is revealed.
"""

from __future__ import annotations

from corpus.store.base import AccessDenied, StoreError, Task, User
from corpus.store.tables import PHASES


def require_lead(actor: User | None) -> None:
    if actor is not None and actor.role != "lead":
        raise AccessDenied(f"{actor.username} is a {actor.role}; only a lead can do this")


def may_see_all_labels(user: User, task: Task) -> bool:
    return user.role == "lead" or (user.role == "viewer" and task.phase == "revealed")


def require_see_all_labels(user: User, task: Task) -> None:
    if may_see_all_labels(user, task):
        return
    if user.role == "viewer":
        raise AccessDenied(f"{user.username} is a viewer; a task's labels are shown to viewers once it is revealed")
    why = "blind coding" if task.phase == "coding" else f"the task is in its {task.phase} phase"
    raise AccessDenied(
        f"{user.username} cannot see other coders' labels of task #{task.id} ({why}); "
        "a coder sees only their own labels"
    )


def require_see_gold(user: User, task: Task) -> None:
    if user.role == "lead" or (user.role == "viewer" and task.phase == "revealed"):
        return
    if user.role == "viewer":
        raise AccessDenied("gold labels are shown to viewers after the lead reveals them")
    raise AccessDenied(
        "coders do not see the task's gold; after the reveal the lead may show each coder "
        "where gold differs from their own labels"
    )


def require_feedback(user: User, task: Task) -> None:
    """A coder's own disagreements with gold: after the reveal, if the lead shows them."""
    if task.phase != "revealed":
        raise AccessDenied("feedback is available once the lead reveals the gold labels")
    if user.role != "lead" and task.coder_view != "own_disagreements":
        raise AccessDenied(f"the lead shows coders nothing of the gold of task '{task.name}'")


def require_label_write(user: User, phase: str, task_name: str) -> None:
    """Labels are written by active coders (not viewers) while the task is in its coding phase."""
    if user.role == "viewer":
        raise AccessDenied(f"{user.username} is a viewer; viewers cannot label")
    if user.status != "active":
        raise AccessDenied(f"the account '{user.username}' is {user.status}")
    if phase == "revealed":
        raise StoreError(f"task '{task_name}' is closed: the labels have been revealed")
    if phase == "adjudication":
        raise StoreError(f"task '{task_name}' is being adjudicated: labels are frozen")


def check_phase(phase: str) -> None:
    if phase not in PHASES:
        raise StoreError(f"phase: '{phase}' is not one of {', '.join(PHASES)}")


def require_open_for_revision(task: Task) -> None:
    if task.phase == "revealed":
        raise StoreError(
            f"task '{task.name}' is closed (revealed); its codebook cannot change. "
            "Start a new task with the revised codebook"
        )
