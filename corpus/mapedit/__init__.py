"""The map editor's domain: a map image becomes the grid JSON of Appendix D.

- :mod:`~corpus.mapedit.draft`: the map being edited and every edit (immutable drafts);
- :mod:`~corpus.mapedit.strokes`: canvas strokes (rectangles, polygons, free strokes, points) to
  cells, by the platform importer's ink rule;
- :mod:`~corpus.mapedit.tools`: what a stroke drawn with each tool does to the map;
- :mod:`~corpus.mapedit.checks`: the problems of a map, each with its cells;
- :mod:`~corpus.mapedit.history`: undo and redo;
- :mod:`~corpus.mapedit.image`: the map image and its limits;
- :mod:`~corpus.mapedit.mapfile`: map JSON export and load, drafts on disk;
- :mod:`~corpus.mapedit.attach`: giving sessions of a dataset their map;
- :mod:`~corpus.mapedit.cli`: ``python -m corpus maps ...``.
"""
