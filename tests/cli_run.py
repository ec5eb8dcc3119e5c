"""Run a command line in the test process: ``python -m corpus ...`` or ``python -m analysis ...``
through the entry point's ``main()``, with its exit code, standard output and standard error as
``subprocess.run`` gives them, without starting an interpreter that imports everything again.

The entry points themselves run as real processes in test_coding_app
(test_cli_uses_the_database_of_the_apps_secrets_file) and test_agreement_cli (test_cli_as_a_module)."""

from __future__ import annotations

import contextlib
import importlib
import io
import subprocess
import sys
from pathlib import Path

import pytest


def run_cli(
    *args: str,
    module: str = "corpus",
    stdin: str = "",
    cwd: Path | None = None,
    env: dict[str, str | None] | None = None,
) -> subprocess.CompletedProcess:
    """``python -m <module> *args``, run in this process; ``env`` sets (or, with None, removes)
    environment variables for the run only."""
    main = importlib.import_module(f"{module}.cli").main
    out, err = io.StringIO(), io.StringIO()
    with pytest.MonkeyPatch.context() as mp:
        if cwd is not None:
            mp.chdir(cwd)
        for name, value in (env or {}).items():
            if value is None:
                mp.delenv(name, raising=False)
            else:
                mp.setenv(name, value)
        mp.setattr(sys, "stdin", io.StringIO(stdin))
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main(list(args))
            except SystemExit as exc:  # argparse's usage errors, and any explicit exit
                code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    return subprocess.CompletedProcess([sys.executable, "-m", module, *args], code, out.getvalue(), err.getvalue())
