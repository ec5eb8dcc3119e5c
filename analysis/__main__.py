from analysis.cli import main

raise SystemExit(main())
