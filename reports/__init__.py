"""Reports: what the screens show, composed into a file instead of a screen.

A page composes services and components for the browser; a report composes the same services (so
its numbers are the pages' numbers, one computation) and the same figure builders into one
self-contained file. :mod:`reports.reproduction` is the paper's results for a dataset, and
:mod:`reports.html` writes it as HTML with its figures as embedded SVG and its tables as CSV in a
zip beside it.
"""
