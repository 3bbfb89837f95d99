"""Prompt caching: the ``Cache`` option, the ``CachePlan`` a request carries, and the pure
functions that place breakpoints (``plan_cache``) and find where two successive requests
part (``prefix_break``). See docs/caching.md."""

from ._core.caching import ANTHROPIC_BREAKPOINTS as ANTHROPIC_BREAKPOINTS
from ._core.caching import CACHE_TTLS as CACHE_TTLS
from ._core.caching import Cache as Cache
from ._core.caching import CachePlan as CachePlan
from ._core.caching import CacheRetention as CacheRetention
from ._core.caching import CacheTTL as CacheTTL
from ._core.caching import as_cache as as_cache
from ._core.caching import cache_wire as cache_wire
from ._core.caching import plan_cache as plan_cache
from ._core.caching import prefix_break as prefix_break

__all__ = [
    "ANTHROPIC_BREAKPOINTS",
    "CACHE_TTLS",
    "Cache",
    "CachePlan",
    "CacheRetention",
    "CacheTTL",
    "as_cache",
    "cache_wire",
    "plan_cache",
    "prefix_break",
]
