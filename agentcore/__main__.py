"""``python -m agentcore``: the ``agentcore`` command line."""

from .cli import main

raise SystemExit(main())
