"""Tests of the label store (corpus.store), on SQLite and the suite's PostgreSQL."""
