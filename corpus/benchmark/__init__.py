"""The benchmark domain: items with a gold answer and runs of answers (`dataset`), and their records as typed models (`records`)."""
