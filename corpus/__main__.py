from corpus.cli.main import main

raise SystemExit(main())
