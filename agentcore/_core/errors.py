"""The engine's exceptions: one root, typed branches, a stable ``code`` on each.

::

    AgentError                       root; every error carries .code (an ErrorCode)
    ├── InvalidEventError            ValueError: malformed event or wire dict (caller's fault)
    ├── ProtocolError                ValueError: events out of order, in strict mode
    ├── ConfigurationError           ValueError: bad option, unknown model, missing API key
    │   └── UnsupportedContentError  a content part the provider or model does not take
    ├── EngineClosedError            RuntimeError: the engine or agent was destroyed
    ├── AgentBusyError               RuntimeError: prompt() while a run is active
    ├── MessageRejectedError         a middleware dropped the message, or destroy() discarded it
    ├── ProviderError                the provider or driver failed (remote fault); .retryable
    ├── LimitExceededError           MAX_ITERATIONS_EXCEEDED, MAX_TOKENS_EXCEEDED,
    │                                MAX_COST_EXCEEDED, TIMEOUT
    ├── AbortedError                 ABORTED: the run was cancelled
    ├── ToolError                    TOOL_VALIDATION_ERROR, TOOL_EXECUTION_ERROR, TOOL_NOT_FOUND,
    │                                TOOL_SKIPPED, TOOL_REJECTED, INTERRUPTED (a tool result's
    │                                ``details["error_code"]``; never a run's error)
    ├── MCPServerError               an MCP server failed (remote fault): MCP_CONNECT_FAILED,
    │                                MCP_CONNECTION_LOST, MCP_TIMEOUT, MCP_REJECTED,
    │                                MCP_PROTOCOL_ERROR; or the caller used a closed one:
    │                                MCP_SERVER_CLOSED; ``.server``, ``.kind``
    ├── OutputParseError             ValueError: OUTPUT_PARSE_ERROR (structured output)
    └── GuardrailTrippedError        GUARDRAIL_TRIPPED: a guardrail stopped the run

Whose fault it is decides the branch: ``ValueError``/``RuntimeError`` subclasses are
the caller's mistakes; ``ProviderError`` and ``MCPServerError`` are the remote side's.
The same codes appear in ``error_received`` / ``error_message`` / ``error_occurred``
events, so an error that was turned into events can be turned back into the matching
exception (``error_from_code``).
"""

from __future__ import annotations

from enum import StrEnum
from typing import Literal, TypeAlias

__all__ = [
    "AbortedError",
    "AgentBusyError",
    "AgentError",
    "ConfigurationError",
    "EngineClosedError",
    "ErrorCode",
    "FailureKind",
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


class ErrorCode(StrEnum):
    """Stable error codes shared by exceptions and error events."""

    INVALID_EVENT = "INVALID_EVENT"
    PROTOCOL_ERROR = "PROTOCOL_ERROR"
    CONFIGURATION_ERROR = "CONFIGURATION_ERROR"
    ENGINE_CLOSED = "ENGINE_CLOSED"
    AGENT_BUSY = "AGENT_BUSY"
    MESSAGE_REJECTED = "MESSAGE_REJECTED"
    UNSUPPORTED_CONTENT = "UNSUPPORTED_CONTENT"
    # remote side
    PROVIDER_ERROR = "PROVIDER_ERROR"
    RATE_LIMITED = "RATE_LIMITED"
    OVERLOADED = "OVERLOADED"
    CONNECTION_ERROR = "CONNECTION_ERROR"
    CONTEXT_OVERFLOW = "CONTEXT_OVERFLOW"
    AUTHENTICATION_ERROR = "AUTHENTICATION_ERROR"
    # plugins inside the engine
    DRIVER_ERROR = "DRIVER_ERROR"
    PRESENTER_ERROR = "PRESENTER_ERROR"
    HANDLER_ERROR = "HANDLER_ERROR"
    PROCESSOR_ERROR = "PROCESSOR_ERROR"
    # the agent loop
    MAX_ITERATIONS_EXCEEDED = "MAX_ITERATIONS_EXCEEDED"
    MAX_TOKENS_EXCEEDED = "MAX_TOKENS_EXCEEDED"
    MAX_COST_EXCEEDED = "MAX_COST_EXCEEDED"
    TIMEOUT = "TIMEOUT"
    ABORTED = "ABORTED"
    TOOL_VALIDATION_ERROR = "TOOL_VALIDATION_ERROR"
    TOOL_EXECUTION_ERROR = "TOOL_EXECUTION_ERROR"
    TOOL_NOT_FOUND = "TOOL_NOT_FOUND"
    TOOL_SKIPPED = "TOOL_SKIPPED"
    TOOL_REJECTED = "TOOL_REJECTED"
    INTERRUPTED = "INTERRUPTED"
    OUTPUT_PARSE_ERROR = "OUTPUT_PARSE_ERROR"
    GUARDRAIL_TRIPPED = "GUARDRAIL_TRIPPED"
    # MCP servers (agentcore.mcp): a tool result's ``details["error_code"]`` too
    MCP_CONNECT_FAILED = "MCP_CONNECT_FAILED"
    MCP_CONNECTION_LOST = "MCP_CONNECTION_LOST"
    MCP_TIMEOUT = "MCP_TIMEOUT"
    MCP_REJECTED = "MCP_REJECTED"
    MCP_PROTOCOL_ERROR = "MCP_PROTOCOL_ERROR"
    MCP_SERVER_CLOSED = "MCP_SERVER_CLOSED"


class AgentError(Exception):
    """Root of every agentcore error; ``code`` says which kind, ``details`` adds data."""

    default_code: ErrorCode = ErrorCode.PROVIDER_ERROR

    def __init__(
        self, message: str, *, code: ErrorCode | str | None = None, details: object = None
    ) -> None:
        super().__init__(message)
        self.message = message
        self.code = ErrorCode(code) if code is not None else self.default_code
        self.details = details

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.message!r}, code={self.code.value!r})"


class InvalidEventError(AgentError, ValueError):
    """An event or wire dict is malformed; the message names the field."""

    default_code = ErrorCode.INVALID_EVENT


class ProtocolError(AgentError, ValueError):
    """Events arrived in an order the processor cannot accept (strict mode only)."""

    default_code = ErrorCode.PROTOCOL_ERROR


class ConfigurationError(AgentError, ValueError):
    """An option, model name or credential is wrong or missing."""

    default_code = ErrorCode.CONFIGURATION_ERROR


class UnsupportedContentError(ConfigurationError):
    """A request holds a content part (an image, document, audio clip or file) that the
    driver's provider or model does not take; refused before anything is sent. The
    message names the part, the model and what it takes."""

    default_code = ErrorCode.UNSUPPORTED_CONTENT


class EngineClosedError(AgentError, RuntimeError):
    """The engine or agent was destroyed; create a new one."""

    default_code = ErrorCode.ENGINE_CLOSED


class AgentBusyError(AgentError, RuntimeError):
    """A run is active; use steer() or follow_up() to add to it."""

    default_code = ErrorCode.AGENT_BUSY


class MessageRejectedError(AgentError):
    """The message was never processed (dropped by middleware or discarded on destroy)."""

    default_code = ErrorCode.MESSAGE_REJECTED


class ProviderError(AgentError):
    """The model provider or driver failed; ``retryable`` says whether trying again may help."""

    default_code = ErrorCode.PROVIDER_ERROR

    def __init__(
        self,
        message: str,
        *,
        code: ErrorCode | str | None = None,
        details: object = None,
        retryable: bool = False,
        status: int | None = None,
    ) -> None:
        super().__init__(message, code=code, details=details)
        self.retryable = retryable
        self.status = status


class LimitExceededError(AgentError):
    """A run limit (iterations, tokens, cost, wall-clock time) was hit."""

    default_code = ErrorCode.MAX_ITERATIONS_EXCEEDED


class AbortedError(AgentError):
    """The run was aborted; history is left well-formed."""

    default_code = ErrorCode.ABORTED


class ToolError(AgentError):
    """A tool call could not be validated, found or executed."""

    default_code = ErrorCode.TOOL_EXECUTION_ERROR


class OutputParseError(AgentError, ValueError):
    """The model's final output did not match the requested structure."""

    default_code = ErrorCode.OUTPUT_PARSE_ERROR


class GuardrailTrippedError(AgentError):
    """A guardrail tripped on the input, the final answer or a tool call; the message
    names the guardrail and its reason. The history is left well-formed."""

    default_code = ErrorCode.GUARDRAIL_TRIPPED


FailureKind: TypeAlias = Literal["connect", "lost", "timeout", "rejected", "protocol", "closed"]
"""How an MCP server failed. ``connect``: could not start or handshake; ``lost``: the
connection died; ``timeout``: no answer in time; ``rejected``: the server answered with
a JSON-RPC error; ``protocol``: an answer the client could not use; ``closed``: the
server was closed with ``aclose()``."""

_MCP_CODES: dict[FailureKind, ErrorCode] = {
    "connect": ErrorCode.MCP_CONNECT_FAILED,
    "lost": ErrorCode.MCP_CONNECTION_LOST,
    "timeout": ErrorCode.MCP_TIMEOUT,
    "rejected": ErrorCode.MCP_REJECTED,
    "protocol": ErrorCode.MCP_PROTOCOL_ERROR,
    "closed": ErrorCode.MCP_SERVER_CLOSED,
}
_MCP_KINDS: dict[ErrorCode, FailureKind] = {code: kind for kind, code in _MCP_CODES.items()}


class MCPServerError(AgentError):
    """An MCP server failed; ``server`` names it and ``kind`` says how (``FailureKind``,
    one per code). Its message never holds a configured secret (``agentcore.mcp``
    redacts every text that reaches it)."""

    default_code = ErrorCode.MCP_CONNECTION_LOST

    def __init__(
        self,
        message: str,
        *,
        server: str = "",
        kind: FailureKind | None = None,
        code: ErrorCode | str | None = None,
        details: object = None,
    ) -> None:
        if kind is not None:
            code = _MCP_CODES[kind]
        super().__init__(message, code=code, details=details)
        if self.code not in _MCP_KINDS:
            raise ValueError(f"{self.code.value} is not an MCP server error code")
        self.server = server
        self.kind: FailureKind = _MCP_KINDS[self.code]
        if details is None:
            self.details = {"server": server, "kind": self.kind}


_BY_CODE: dict[ErrorCode, type[AgentError]] = {
    ErrorCode.INVALID_EVENT: InvalidEventError,
    ErrorCode.PROTOCOL_ERROR: ProtocolError,
    ErrorCode.CONFIGURATION_ERROR: ConfigurationError,
    ErrorCode.UNSUPPORTED_CONTENT: UnsupportedContentError,
    ErrorCode.ENGINE_CLOSED: EngineClosedError,
    ErrorCode.AGENT_BUSY: AgentBusyError,
    ErrorCode.MESSAGE_REJECTED: MessageRejectedError,
    ErrorCode.MAX_ITERATIONS_EXCEEDED: LimitExceededError,
    ErrorCode.MAX_TOKENS_EXCEEDED: LimitExceededError,
    ErrorCode.MAX_COST_EXCEEDED: LimitExceededError,
    ErrorCode.TIMEOUT: LimitExceededError,
    ErrorCode.ABORTED: AbortedError,
    ErrorCode.TOOL_VALIDATION_ERROR: ToolError,
    ErrorCode.TOOL_EXECUTION_ERROR: ToolError,
    ErrorCode.TOOL_NOT_FOUND: ToolError,
    ErrorCode.TOOL_SKIPPED: ToolError,
    ErrorCode.TOOL_REJECTED: ToolError,
    ErrorCode.INTERRUPTED: ToolError,
    ErrorCode.OUTPUT_PARSE_ERROR: OutputParseError,
    ErrorCode.GUARDRAIL_TRIPPED: GuardrailTrippedError,
    **{code: MCPServerError for code in _MCP_KINDS},
}


def error_from_code(message: str, code: str, *, retryable: bool = False) -> AgentError:
    """Turn an error event's ``message``/``code`` back into the matching exception.

    Unknown codes (a custom driver's own) become a ``ProviderError`` that keeps them.
    """
    try:
        known = ErrorCode(code)
    except ValueError:
        return ProviderError(
            message, code=ErrorCode.PROVIDER_ERROR, details={"code": code}, retryable=retryable
        )
    cls = _BY_CODE.get(known)
    if cls is None:
        return ProviderError(message, code=known, retryable=retryable)
    return cls(message, code=known)
