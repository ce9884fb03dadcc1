"""``python -m statewright_compiler`` is the ``statewright`` command."""

from statewright_compiler.launch import main

raise SystemExit(main())
