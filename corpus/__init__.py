"""The domain of Groundwork: data model, validated import, canvas reconstruction, task metrics,
the sample-corpus generator and (for coding) the label store."""
