"""Build one pure processor out of several: fan-out, pipelines, filters, output maps.

See docs/machine.md for the state shapes and the pipeline semantics.
"""

from ._core.combinators import chain_initial_states as chain_initial_states
from ._core.combinators import chain_processors as chain_processors
from ._core.combinators import combine_initial_states as combine_initial_states
from ._core.combinators import combine_processors as combine_processors
from ._core.combinators import filter_processor as filter_processor
from ._core.combinators import identity_processor as identity_processor
from ._core.combinators import map_output as map_output
from ._core.observers import with_logging as with_logging
from ._core.route import route_processors as route_processors

__all__ = [
    "chain_initial_states",
    "chain_processors",
    "combine_initial_states",
    "combine_processors",
    "filter_processor",
    "identity_processor",
    "map_output",
    "route_processors",
    "with_logging",
]
