"""``python -m statewright_compiler`` is the ``statewright`` command."""

from statewright_compiler.cli import main

raise SystemExit(main())
