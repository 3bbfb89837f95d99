"""The ``agentcore`` command line (``agentcore replay|inspect|chat|code``); see docs/journal.md
and docs/coding.md."""

from ._app.cli import COMMAND_MODULES as COMMAND_MODULES
from ._app.cli import Command as Command
from ._app.cli import build_parser as build_parser
from ._app.cli import main as main
from ._app.cli import register_command as register_command
from ._journal.describe import describe as describe

__all__ = ["COMMAND_MODULES", "Command", "build_parser", "describe", "main", "register_command"]
