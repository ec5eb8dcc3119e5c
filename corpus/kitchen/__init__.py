"""The kitchen domain: one two-agent cooking run as Groundwork reads it (`run`) and a kitchen dataset on disk (`dataset`)."""
