"""Guardrails on the input, the final answer and tool calls (docs/middleware.md): a
tripwire ends the run with ``GUARDRAIL_TRIPPED`` (``GuardrailTrippedError``)."""

from ._core.errors import GuardrailTrippedError as GuardrailTrippedError
from ._runtime.guardrails import Guardrail as Guardrail
from ._runtime.guardrails import Tripwire as Tripwire
from ._runtime.guardrails import guardrail as guardrail

__all__ = ["Guardrail", "GuardrailTrippedError", "Tripwire", "guardrail"]
