"""Drivers by name: ``get_driver("openai/gpt-4.1")``, ``get_driver("ollama/llama3.1")``.

A model spec is ``provider/model``; everything after the first ``/`` is the provider's own
model id (so ``openrouter/anthropic/claude-sonnet-4.5`` asks OpenRouter for
``anthropic/claude-sonnet-4.5``). ``PROVIDERS`` says, per provider, which driver speaks
to it, the default base URL and the environment variable holding its key. Add an entry
to reach another OpenAI-compatible server by name.

Keys come from ``api_key=``, else the provider's environment variable; ``get_api_key``
(sync or async, called before every request) is passed through to the driver. Local
servers (loopback base URL) need no key. SDKs are imported only when a driver of theirs
is asked for, so ``openai`` alone is enough for OpenAI-compatible providers.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

import attrs

from agentcore import BaseDriver
from agentcore.errors import ConfigurationError

from ._common.base import ApiKeySource

__all__ = ["PROVIDERS", "Provider", "get_driver", "split_model"]


@attrs.frozen(slots=True)
class Provider:
    """How to reach one provider: the driver family, base URL and key variable.

    ``base_url=None`` means the SDK's default endpoint. ``options`` are extra keyword
    arguments for the driver (e.g. ``{"system_role": "developer"}``).
    """

    driver: Literal["anthropic", "google", "openai", "openai-responses"]
    api_key_env: str
    base_url: str | None = None
    options: Mapping[str, Any] = attrs.field(factory=dict)


PROVIDERS: dict[str, Provider] = {
    "anthropic": Provider("anthropic", "ANTHROPIC_API_KEY"),
    "google": Provider("google", "GEMINI_API_KEY"),
    "openai": Provider("openai", "OPENAI_API_KEY"),
    "openai-responses": Provider("openai-responses", "OPENAI_API_KEY"),
    "openrouter": Provider("openai", "OPENROUTER_API_KEY", "https://openrouter.ai/api/v1"),
    "groq": Provider("openai", "GROQ_API_KEY", "https://api.groq.com/openai/v1"),
    "together": Provider("openai", "TOGETHER_API_KEY", "https://api.together.xyz/v1"),
    "deepseek": Provider("openai", "DEEPSEEK_API_KEY", "https://api.deepseek.com/v1"),
    "ollama": Provider("openai", "OLLAMA_API_KEY", "http://127.0.0.1:11434/v1"),
    "vllm": Provider("openai", "VLLM_API_KEY", "http://127.0.0.1:8000/v1"),
    "lmstudio": Provider("openai", "LMSTUDIO_API_KEY", "http://127.0.0.1:1234/v1"),
    "llamacpp": Provider("openai", "LLAMACPP_API_KEY", "http://127.0.0.1:8080/v1"),
}
"""Provider name -> ``Provider``. For the local servers the key variable is optional."""

_INFERRED = (
    ("claude-", "anthropic"),
    ("gpt-", "openai"),
    ("chatgpt-", "openai"),
    ("gemini-", "google"),
)


def split_model(spec: str) -> tuple[str, str]:
    """``"provider/model"`` -> ``(provider, model)``.

    A bare ``claude-*``, ``gpt-*`` or ``gemini-*`` id gets its vendor; anything else
    without a provider is a ``ConfigurationError`` listing the known providers.
    """
    provider, slash, model = spec.partition("/")
    if slash and provider and model:
        return provider, model
    if not slash:
        for prefix, vendor in _INFERRED:
            if spec.startswith(prefix):
                return vendor, spec
    raise ConfigurationError(
        f"model {spec!r} should be 'provider/model', e.g. 'openai/gpt-4.1' or "
        f"'ollama/llama3.1'; known providers: {', '.join(sorted(PROVIDERS))}"
    )


def get_driver(
    spec: str,
    *,
    api_key: str | None = None,
    get_api_key: ApiKeySource | None = None,
    base_url: str | None = None,
    **options: Any,
) -> BaseDriver:
    """A driver for ``spec`` (``provider/model``), configured from ``PROVIDERS`` (a
    ``BaseDriver``: ``async with get_driver(...) as driver`` closes the client it builds).

    ``base_url`` overrides the provider's default; ``options`` go to the driver's
    constructor (``thinking_level``, ``retry``, ``max_tokens``...). Raises
    ``ConfigurationError`` for an unknown provider (naming the known ones), a missing key
    (naming the variable to set) or a missing SDK (naming the extra to install).
    """
    name, model = split_model(spec)
    provider = PROVIDERS.get(name)
    if provider is None:
        raise ConfigurationError(
            f"unknown provider {name!r} in {spec!r}; known: {', '.join(sorted(PROVIDERS))}"
        )
    kwargs: dict[str, Any] = {**provider.options, **options}
    kwargs.update(api_key=api_key, get_api_key=get_api_key)
    url = base_url or provider.base_url
    if provider.driver == "anthropic":
        try:
            from .anthropic import AnthropicDriver
        except ImportError as exc:
            raise _missing("anthropic", exc) from exc
        return AnthropicDriver(model, base_url=url, **kwargs)
    if provider.driver == "google":
        try:
            from .google import GoogleDriver
        except ImportError as exc:
            raise _missing("google", exc) from exc
        return GoogleDriver(model, base_url=url, **kwargs)
    if provider.driver == "openai-responses":
        try:
            from .openai_responses import OpenAIResponsesDriver
        except ImportError as exc:
            raise _missing("openai", exc) from exc
        return OpenAIResponsesDriver(
            model, base_url=url, provider=name, api_key_env=provider.api_key_env, **kwargs
        )
    try:
        from .openai import OpenAIDriver
    except ImportError as exc:
        raise _missing("openai", exc) from exc
    return OpenAIDriver(
        model, base_url=url, provider=name, api_key_env=provider.api_key_env, **kwargs
    )


def _missing(extra: str, exc: ImportError) -> ConfigurationError:
    return ConfigurationError(
        f"the {extra} driver needs its SDK ({exc}); install it with "
        f"pip install 'agentcore-engine[{extra}]'"
    )
