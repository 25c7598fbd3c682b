from torchcheck.cli import main

raise SystemExit(main())
