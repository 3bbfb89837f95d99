"""``python -m agentcore.demo`` (``make run``): the main demo, offline; see ``_app.demo``."""

from ._app.demo import SESSION as SESSION
from ._app.demo import layer_lines as layer_lines
from ._app.demo import main as main

__all__ = ["SESSION", "layer_lines", "main"]

if __name__ == "__main__":
    main()
