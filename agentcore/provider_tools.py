"""Provider-side tools (``WebSearch``, ``CodeExecution``, ``WebFetch``), the message parts
their calls, results and citations become, and the ``provider_part`` stream event that
carries them. See docs/provider-tools.md."""

from ._core.provider_tools import PROVIDER_PART_TYPES as PROVIDER_PART_TYPES
from ._core.provider_tools import CitationPart as CitationPart
from ._core.provider_tools import CodeExecution as CodeExecution
from ._core.provider_tools import ProviderPart as ProviderPart
from ._core.provider_tools import ProviderPartEvent as ProviderPartEvent
from ._core.provider_tools import ProviderTool as ProviderTool
from ._core.provider_tools import ProviderToolError as ProviderToolError
from ._core.provider_tools import ServerToolCallPart as ServerToolCallPart
from ._core.provider_tools import ServerToolResultPart as ServerToolResultPart
from ._core.provider_tools import UserLocation as UserLocation
from ._core.provider_tools import WebFetch as WebFetch
from ._core.provider_tools import WebSearch as WebSearch
from ._core.provider_tools import as_provider_tool as as_provider_tool
from ._core.provider_tools import is_provider_tool as is_provider_tool
from ._core.provider_tools import provider_tool_wire as provider_tool_wire
from ._core.provider_tools import refuse_provider_tools as refuse_provider_tools

__all__ = [
    "CitationPart",
    "CodeExecution",
    "PROVIDER_PART_TYPES",
    "ProviderPart",
    "ProviderPartEvent",
    "ProviderTool",
    "ProviderToolError",
    "ServerToolCallPart",
    "ServerToolResultPart",
    "UserLocation",
    "WebFetch",
    "WebSearch",
    "as_provider_tool",
    "is_provider_tool",
    "provider_tool_wire",
    "refuse_provider_tools",
]
