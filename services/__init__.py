"""What the pages need, computed once: cached computations between the pages and analysis/corpus."""
