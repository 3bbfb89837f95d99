"""The error tree of agentcore; drawn in full in ``agentcore._errors``."""

from ._errors import (
    AbortedError as AbortedError,
)
from ._errors import (
    AgentBusyError as AgentBusyError,
)
from ._errors import (
    AgentError as AgentError,
)
from ._errors import (
    ConfigurationError as ConfigurationError,
)
from ._errors import (
    EngineClosedError as EngineClosedError,
)
from ._errors import (
    ErrorCode as ErrorCode,
)
from ._errors import (
    InvalidEventError as InvalidEventError,
)
from ._errors import (
    LimitExceededError as LimitExceededError,
)
from ._errors import (
    MessageRejectedError as MessageRejectedError,
)
from ._errors import (
    OutputParseError as OutputParseError,
)
from ._errors import (
    ProtocolError as ProtocolError,
)
from ._errors import (
    ProviderError as ProviderError,
)
from ._errors import (
    ToolError as ToolError,
)
from ._errors import (
    error_from_code as error_from_code,
)

__all__ = [
    "AbortedError",
    "AgentBusyError",
    "AgentError",
    "ConfigurationError",
    "EngineClosedError",
    "ErrorCode",
    "InvalidEventError",
    "LimitExceededError",
    "MessageRejectedError",
    "OutputParseError",
    "ProtocolError",
    "ProviderError",
    "ToolError",
    "error_from_code",
]
