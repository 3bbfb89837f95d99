"""What ``Agent`` accepts: a model, prices, limits in seconds, per-run options, checked.

Every check raises ``ConfigurationError`` naming the option and the value it got.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from .._core.driver import THINKING_LEVELS
from .._core.errors import ConfigurationError
from .._core.pricing import ModelPrice, PriceTier
from .._edges.driver import Driver, as_driver
from .._journal.journal import Journal, JsonlJournal, read_jsonl
from .._loop.state import Limits
from .plugins import find_model_price

__all__ = [
    "as_model_driver",
    "limits_of",
    "no_price",
    "only_agent",
    "positive_int",
    "prices_for",
    "run_options",
    "seconds_to_ms",
]

_RUN_OPTIONS = frozenset({"max_iterations", "max_tokens", "max_cost", "timeout", "cache"})


def only_agent(journal: Journal) -> str:
    """The one agent ``journal`` holds (a JSONL file's events are not decoded for this)."""
    if isinstance(journal, JsonlJournal):
        entries = read_jsonl(journal.path, decode_events=False)
    else:
        entries = journal.entries()
    agents = list(dict.fromkeys(entry.agent_id for entry in entries))
    if len(agents) != 1:
        raise ConfigurationError(
            f"journal {journal!r} holds agents {agents}; say which with agent_id="
        )
    return agents[0]


def positive_int(name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ConfigurationError(f"{name} must be an int >= 1, got {value!r}")
    return value


def as_model_driver(model: Any, driver_factory: Callable[[str], Driver] | None = None) -> Driver:
    """``model`` as a driver; a list or tuple of names and drivers is a ``FallbackDriver``
    whose names ``driver_factory`` resolves."""
    if isinstance(model, list | tuple):
        from .fallback import FallbackDriver  # 0.4 ms of the import, for a chain only

        return FallbackDriver(model, driver_factory=driver_factory)
    try:
        return as_driver(model)
    except TypeError:
        raise ConfigurationError(
            f"model must be a 'provider/model' string, a Driver, or a list of them (a "
            f"fallback chain), got {model!r}"
        ) from None


def _dearest(prices: Sequence[ModelPrice]) -> ModelPrice:
    """Each rate at its highest among ``prices`` and their long-prompt tiers (a cache rate
    left unset is the input's), and the smallest context window, so compaction keeps a
    request fit for any of them (unknown when any is)."""
    windows = [p.context_window for p in prices]
    rates: list[ModelPrice | PriceTier] = [*prices]
    rates.extend(t for p in prices for t in p.tiers)
    cache_write = [r.input if r.cache_write is None else r.cache_write for r in rates]
    return ModelPrice(
        input=max(r.input for r in rates),
        output=max(r.output for r in rates),
        cache_read=max(r.input if r.cache_read is None else r.cache_read for r in rates),
        cache_write=max(cache_write),
        cache_write_1h=max(
            [*cache_write, *(r.cache_write_1h for r in rates if r.cache_write_1h is not None)]
        ),
        context_window=None if None in windows else min(w for w in windows if w is not None),
    )


def prices_for(
    model: str | Driver, price: ModelPrice | None
) -> tuple[ModelPrice | None, dict[str, ModelPrice] | None]:
    """The loop's price and the turn tracker's table for ``model``.

    Without an explicit ``price``, the model is looked up in the price tables plugins
    register (``None`` when unknown): a ``"provider/model"`` string, or a driver's
    ``model`` attribute. The table keys the price by the model id, so turn costs follow
    the loop's. For a ``FallbackDriver`` the table holds every model of the chain (each
    model call is charged at the model that answered it, ``call_cost``) and the price,
    for a model the table does not know, is each rate at its dearest in the chain, so a
    fallback never overspends the budget. Both are ``None`` when a model of the chain has
    no price (a run's cost is then unknown, never a partial sum); an explicit ``price``
    prices every call of the chain.
    """
    fallback = sys.modules.get(f"{__package__}.fallback")  # no chain before its module
    if fallback is not None and isinstance(model, fallback.FallbackDriver):
        if price is not None:
            return price, None
        found = [prices_for(entry, None) for entry in model.models]
        if any(p is None for p, _ in found):
            return None, None
        table = {key: value for _, part in found if part for key, value in part.items()}
        return _dearest([p for p, _ in found if p is not None]), table or None
    if isinstance(model, str):
        key: object = model.rpartition("/")[2]
        if price is None:
            price = find_model_price(model)
    else:
        key = getattr(model, "model", None)
        if price is None and isinstance(key, str) and key:
            price = find_model_price(key)
    if price is None or not isinstance(key, str) or not key:
        return price, None
    return price, {key: price}


def no_price(model: str | Driver) -> ConfigurationError:
    name = model if isinstance(model, str) else model.name
    return ConfigurationError(
        f"max_cost needs a price for model {name}; pass price=ModelPrice(...)"
    )


def seconds_to_ms(name: str, seconds: Any, *, allow_zero: bool = False) -> int | None:
    if seconds is None:
        return None
    if (
        isinstance(seconds, bool)
        or not isinstance(seconds, int | float)
        or not (seconds >= 0 if allow_zero else seconds > 0)
    ):
        bound = ">= 0" if allow_zero else "> 0"
        raise ConfigurationError(f"{name} must be a number of seconds {bound}, got {seconds!r}")
    return round(seconds * 1000) if allow_zero else max(1, round(seconds * 1000))


def limits_of(max_iterations: Any, max_tokens: Any, max_cost: Any, timeout: Any) -> Limits:
    return Limits(max_iterations, max_tokens, max_cost, seconds_to_ms("timeout", timeout))


def run_options(
    values: dict[str, Any], price: ModelPrice | None, model: str | Driver
) -> dict[str, Any]:
    """Per-run overrides (limits, and ``cache``, which ``agent_prompt`` checks), checked:
    unknown names and bad values raise ``ConfigurationError``."""
    if not values:  # the usual run: nothing to check
        return {}
    unknown = set(values) - _RUN_OPTIONS
    if unknown:
        raise ConfigurationError(
            f"unknown run option(s) {sorted(unknown)}; known: {sorted(_RUN_OPTIONS)}"
        )
    out = {k: v for k, v in values.items() if k != "timeout"}
    if "timeout" in values:
        out["timeout_ms"] = seconds_to_ms("timeout", values["timeout"])
    Limits(**{k: out.get(k) for k in ("max_iterations", "max_tokens", "max_cost")})
    if out.get("max_cost") is not None and price is None:
        raise no_price(model)
    return out


_LISTS = (
    "tools",
    "toolsets",
    "presenters",
    "middleware",
    "extensions",
    "input_guardrails",
    "output_guardrails",
    "tool_guardrails",
)
"""The options that take a list: a lone object there is the usual slip."""


def check_options(options: Mapping[str, Any]) -> None:
    """The ``ConfigurationError`` (naming the option and the value) for an ``Agent``
    option of the wrong kind, before it fails deep inside, or at the provider."""
    for name in _LISTS:
        value = options.get(name, ())
        if isinstance(value, str | bytes | Mapping) or not isinstance(value, Iterable):
            raise ConfigurationError(
                f"{name} must be a list, got {_shown(value)}; write {name}=[{_short(value)}]"
            )
    journal = options.get("journal")
    if journal is not None and not isinstance(journal, Journal):
        raise ConfigurationError(
            f"journal must be a Journal, got {journal!r}; for a file write "
            f"journal=JsonlJournal({str(journal)!r})"
            if isinstance(journal, str | os.PathLike)
            else f"journal must be a Journal (JsonlJournal, MemoryJournal...), got {journal!r}"
        )
    system_prompt = options.get("system_prompt")
    if system_prompt is not None and not isinstance(system_prompt, str):
        raise ConfigurationError(
            f"system_prompt must be a str, got {system_prompt!r}"
            + ("; join the parts: '\\n'.join([...])" if isinstance(system_prompt, list) else "")
        )
    temperature = options.get("temperature")
    if temperature is not None and (
        isinstance(temperature, bool) or not isinstance(temperature, int | float)
    ):
        raise ConfigurationError(f"temperature must be a number, got {temperature!r}")
    level = options.get("thinking_level")
    if level is not None and level not in THINKING_LEVELS:
        raise ConfigurationError(
            f"thinking_level must be one of {list(THINKING_LEVELS)}, got {level!r}"
        )


def _shown(value: Any) -> str:
    name = getattr(value, "name", None)
    if isinstance(name, str):  # a Tool: its name, not its whole repr
        return f"the {type(value).__name__} {name!r}"
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _short(value: Any) -> str:
    return getattr(value, "name", None) or getattr(value, "__name__", None) or "..."
