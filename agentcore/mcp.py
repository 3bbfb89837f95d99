"""Tools from Model Context Protocol servers (``MCPServer`` and its configuration), and an
agent served to MCP clients (``AgentMCPServer``, docs/mcp-server.md).

Needs the ``mcp`` extra (``pip install 'agentcore-engine[mcp]'``). See docs/mcp.md.
"""

try:
    import mcp as _sdk  # noqa: F401
except ImportError as exc:  # pragma: no cover - depends on the installation
    raise ImportError(
        "agentcore.mcp needs the official MCP SDK: pip install 'agentcore-engine[mcp]'"
    ) from exc

from ._core.errors import FailureKind as FailureKind
from ._core.errors import MCPServerError as MCPServerError
from ._loop.events import ElicitationAnswer as ElicitationAnswer
from ._loop.events import ElicitationRequest as ElicitationRequest
from ._mcp.callbacks import ElicitationHandler as ElicitationHandler
from ._mcp.config import HttpParams as HttpParams
from ._mcp.config import ServerParams as ServerParams
from ._mcp.config import StdioParams as StdioParams
from ._mcp.config import expand_env as expand_env
from ._mcp.config import read_mcp_config as read_mcp_config
from ._mcp.convert import MCPPrompt as MCPPrompt
from ._mcp.convert import MCPResource as MCPResource
from ._mcp.convert import PromptArgument as PromptArgument
from ._mcp.convert import PromptMessage as PromptMessage
from ._mcp.server import MCPServer as MCPServer
from ._mcp.server import load_mcp_servers as load_mcp_servers
from ._mcp.serving import AgentMCPServer as AgentMCPServer

__all__ = [
    "AgentMCPServer",
    "ElicitationAnswer",
    "ElicitationHandler",
    "ElicitationRequest",
    "FailureKind",
    "HttpParams",
    "MCPPrompt",
    "MCPResource",
    "MCPServer",
    "MCPServerError",
    "PromptArgument",
    "PromptMessage",
    "ServerParams",
    "StdioParams",
    "expand_env",
    "load_mcp_servers",
    "read_mcp_config",
]
