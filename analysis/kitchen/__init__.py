"""Kitchen runs (Collab-Overcooked, Overcooked-AI): the TGCO communication audit and what reads it.

- :mod:`~analysis.kitchen.requests`: request units read from the agents' messages (``Collab(...)``,
  plans, and plain language by the rule set of :mod:`~analysis.kitchen.language`).
- :mod:`~analysis.kitchen.tgco`: the TGCO audit of those units (what belongs to the task, the window,
  the decision rule, the outcome of each unit).
- :mod:`~analysis.kitchen.dependencies`: structured interdependence, the items one agent leaves on
  the counter for the other and what became of them.
- :mod:`~analysis.kitchen.metrics`: the coordination metrics of a run and their means over runs.
- :mod:`~analysis.kitchen.agreement`: the audit as an automatic coder against people's TGCO codes;
  :mod:`~analysis.kitchen.reference`: against the TGCO paper's authors' own audit.
- :mod:`~analysis.kitchen.coding`: request units as coding items.
- :mod:`~analysis.kitchen.replay`: a run's frames and the tile player's payload.
- :mod:`~analysis.kitchen.cli`: ``python -m analysis kitchen``.
"""
