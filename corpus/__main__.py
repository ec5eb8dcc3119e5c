from corpus.cli import main, run_command

raise SystemExit(run_command(main))
