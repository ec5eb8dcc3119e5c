from corpus.cli import main

raise SystemExit(main())
