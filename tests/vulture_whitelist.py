"""Names vulture takes for dead code that are used all the same: read by a library by name, written
for a library to read, or kept on purpose. tests/test_build.py runs vulture over the project's
packages with this file among the code it reads (a name used here counts as used); pydantic's
validators and SQLAlchemy's event listeners are left out there by their decorators, and the fields
of records (an annotated name in a class body) by where they stand.

Add a name only with the reason it is used; a function no code calls is removed instead."""

# ruff: noqa: B018 - each line names an attribute so that vulture counts it as used
from vulture.whitelist_utils import Whitelist

_ = Whitelist()

# pydantic reads a model's configuration and pydantic-settings its sources hook by name; the hook's
# signature is the library's, whether or not every source is used.
_.model_config
_.settings_customise_sources
_.settings_cls
_.dotenv_settings
_.file_secret_settings

# Attributes set for a library to read: numpy's read-only flag, sqlite3's transaction control,
# zipfile's compression of an entry, Plotly's clipping of a trace's text.
_.writeable
_.isolation_level
_.compress_type
_.cliponaxis

# multiprocessing's hook that starts a worker process (corpus.server.processes).
_._Popen

# Parameters of st.cache_data and st.cache_resource functions that only key the cache.
_.store_url
_.run_key

# Kept on purpose: the check that decided a unit, in the order a docstring names (analysis.kitchen.tgco);
# the role colours and the eighth Okabe-Ito colour, part of the palette docs/architecture.md names.
_.STAGES
_.ROLE
_.BLACK
