from assistant.frontends.cli import main

raise SystemExit(main())
