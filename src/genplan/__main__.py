from genplan.cli import main

raise SystemExit(main())
