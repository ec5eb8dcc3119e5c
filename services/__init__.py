"""What the pages need, computed once: cached computations keyed by the dataset's content hash
(:attr:`corpus.loading.dataset.Corpus.content_hash`), so two loads of the same data share their results and
an edited dataset never sees stale ones."""
