"""The coding screens: one item at a time, a code by key or click, every label saved at once.

- :mod:`.picker`: choosing a task;
- :mod:`.screen`: the coding screen (progress, moving between items, resume);
- :mod:`.item`: the item with the actions around it, the canvas with its legend, a Replay link;
- :mod:`.keypad`: the codes, the note and the keys, as a custom component (``assets/``) whose
  label event carries the code, the note and the unsure flag together;
- :mod:`.feedback`: after the reveal, the coder's labels against gold.
"""

from components.coding.feedback import feedback_view
from components.coding.item import item_view
from components.coding.picker import task_picker
from components.coding.screen import coding_screen, on_task_dataset

__all__ = ["coding_screen", "feedback_view", "item_view", "on_task_dataset", "task_picker"]
