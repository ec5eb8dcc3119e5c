from analysis.cli import main
from corpus.cli import run_command

raise SystemExit(run_command(main))
