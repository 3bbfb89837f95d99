"""Plugins found by entry point, so ``agentcore`` never imports ``drivers`` or ``presenters``.

A package fills two groups in its ``pyproject.toml``::

    [project.entry-points."agentcore.drivers"]
    registry = "agentcore.drivers.registry:get_driver"     # (spec: str, **options) -> Driver

    [project.entry-points."agentcore.prices"]
    dataset = "agentcore.drivers.prices:DATASET"            # a PriceSource (genai-prices)
    table = "agentcore.drivers.prices:PRICES"               # Mapping[str, ModelPrice]

    [project.entry-points."agentcore.protocols"]
    ag-ui = "agentcore.presenters.ag_ui:PROTOCOL"           # a wire protocol of agentcore serve

``resolve_model("provider/model")`` asks each driver resolver in turn (sorted by entry
name); the first that does not raise ``LookupError`` wins. ``find_model_price`` looks the
model up in every price table or ``PriceSource``, in entry-name order (the dataset before
the hand-written fallback table). Entry points are loaded on first use, never at import.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import cache
from typing import Any

from .._core.errors import ConfigurationError
from .._core.pricing import ModelPrice, PriceSource, find_price
from .._edges.driver import Driver

__all__ = [
    "DRIVER_GROUP",
    "PRICE_GROUP",
    "PROTOCOL_GROUP",
    "find_model_price",
    "price_table",
    "protocol_names",
    "resolve_model",
    "wire_protocol",
]

DRIVER_GROUP = "agentcore.drivers"
PRICE_GROUP = "agentcore.prices"
PROTOCOL_GROUP = "agentcore.protocols"


def entry_points(*, group: str) -> Any:
    """``importlib.metadata.entry_points``, imported on first use (it reads every
    installed distribution's metadata module: most of ``importlib.metadata``'s cost)."""
    from importlib.metadata import entry_points as found

    return found(group=group)


@cache
def _loaded(group: str) -> tuple[Any, ...]:
    return tuple(entry.load() for entry in sorted(entry_points(group=group), key=lambda e: e.name))


def resolve_model(spec: str, **options: Any) -> Driver:
    """A driver for ``spec`` from the first resolver of the ``agentcore.drivers`` group.

    Raises ``ConfigurationError`` when no package provides resolvers (install
    ``agentcore[anthropic]`` or ``agentcore[openai]``, or pass a ``Driver`` instance).
    """
    resolvers: tuple[Callable[..., Driver], ...] = _loaded(DRIVER_GROUP)
    if not resolvers:
        raise ConfigurationError(
            f"cannot resolve the model name {spec!r}: no package registers drivers in the "
            f"{DRIVER_GROUP!r} entry-point group; install agentcore with its drivers, or pass "
            "a Driver instance"
        )
    last: LookupError | None = None
    for resolve in resolvers:
        try:
            return resolve(spec, **options)
        except LookupError as exc:  # this resolver does not know the provider
            last = exc
    raise ConfigurationError(f"no driver knows {spec!r}: {last}")


def find_model_price(model: str) -> ModelPrice | None:
    """The price of ``model`` in the first ``agentcore.prices`` table that knows it."""
    tables: tuple[Mapping[str, ModelPrice] | PriceSource, ...] = _loaded(PRICE_GROUP)
    for table in tables:
        price = table.find(model) if isinstance(table, PriceSource) else find_price(table, model)
        if price is not None:
            return price
    return None


def price_table() -> dict[str, ModelPrice]:
    """Every registered price table merged (the first table wins for a model both know)."""
    tables: tuple[Mapping[str, ModelPrice] | PriceSource, ...] = _loaded(PRICE_GROUP)
    merged: dict[str, ModelPrice] = {}
    for table in reversed(tables):
        merged.update(table.table() if isinstance(table, PriceSource) else table)
    return merged


def protocol_names() -> list[str]:
    """The wire protocols registered in the ``agentcore.protocols`` group, sorted."""
    return sorted({entry.name for entry in entry_points(group=PROTOCOL_GROUP)})


@cache
def wire_protocol(name: str) -> Any:
    """The wire protocol registered as ``name`` (loaded on first use). Raises
    ``ConfigurationError`` naming the known ones, or the missing package of one that
    cannot be imported (e.g. ``ag-ui-protocol``: ``pip install 'agentcore-engine[ag-ui]'``)."""
    found = [e for e in entry_points(group=PROTOCOL_GROUP) if e.name == name]
    if not found:
        raise ConfigurationError(
            f"unknown protocol {name!r}; registered: {', '.join(protocol_names()) or 'none'}"
        )
    try:
        return found[0].load()
    except ImportError as exc:
        raise ConfigurationError(
            f"protocol {name!r} cannot be loaded: {exc} (install its extra, e.g. "
            f"pip install 'agentcore-engine[{name}]')"
        ) from None
