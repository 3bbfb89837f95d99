"""The error tree of agentcore; drawn in full in ``agentcore._errors``."""

from ._core.errors import (
    AbortedError as AbortedError,
)
from ._core.errors import (
    AgentBusyError as AgentBusyError,
)
from ._core.errors import (
    AgentError as AgentError,
)
from ._core.errors import (
    ConfigurationError as ConfigurationError,
)
from ._core.errors import (
    EngineClosedError as EngineClosedError,
)
from ._core.errors import (
    ErrorCode as ErrorCode,
)
from ._core.errors import (
    GuardrailTrippedError as GuardrailTrippedError,
)
from ._core.errors import (
    InvalidEventError as InvalidEventError,
)
from ._core.errors import (
    LimitExceededError as LimitExceededError,
)
from ._core.errors import (
    MCPServerError as MCPServerError,
)
from ._core.errors import (
    MessageRejectedError as MessageRejectedError,
)
from ._core.errors import (
    OutputParseError as OutputParseError,
)
from ._core.errors import (
    ProtocolError as ProtocolError,
)
from ._core.errors import (
    ProviderError as ProviderError,
)
from ._core.errors import (
    ToolError as ToolError,
)
from ._core.errors import (
    UnsupportedContentError as UnsupportedContentError,
)
from ._core.errors import (
    error_from_code as error_from_code,
)

__all__ = [
    "AbortedError",
    "AgentBusyError",
    "AgentError",
    "ConfigurationError",
    "EngineClosedError",
    "ErrorCode",
    "GuardrailTrippedError",
    "InvalidEventError",
    "LimitExceededError",
    "MCPServerError",
    "MessageRejectedError",
    "OutputParseError",
    "ProtocolError",
    "ProviderError",
    "ToolError",
    "UnsupportedContentError",
    "error_from_code",
]
