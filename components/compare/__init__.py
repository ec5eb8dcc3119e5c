"""Renderers of the Compare page: one module per view (runs, leaderboard, overlay, confusions,
slices, ablation, instances, judges); they draw what :mod:`services.compare` computed."""
