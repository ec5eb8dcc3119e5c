"""Pure computation on the corpus tables: DataFrames in, results out (no UI code)."""
