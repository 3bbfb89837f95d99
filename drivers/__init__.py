"""Drivers: the I/O edge turning model providers, scripts and recordings into stream events.

Installed as ``agentcore.drivers``; each driver is a submodule (``agentcore.drivers.
anthropic``, ``.openai``, ``.google``, ``.scripted``, ``.replay``, ``.registry``, ...).
"""

__all__: list[str] = []  # nothing re-exported: import the submodules
