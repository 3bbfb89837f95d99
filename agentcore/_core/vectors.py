"""The persistent vector the core and the loop keep histories and chunks in: pyrsistent's C
``pvector`` imported straight from its extension, which skips the fifteen modules of
pyrsistent's package (about 4 ms of ``from agentcore import Agent``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

__all__ = ["pvector"]

if TYPE_CHECKING:
    from pyrsistent import pvector
else:
    try:
        from pvectorc import pvector
    except ImportError:  # pyrsistent built without its C extension
        from pyrsistent import pvector
