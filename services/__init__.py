"""What the pages need, computed once: cached computations keyed by the dataset's content hash
(see docs/architecture.md)."""
