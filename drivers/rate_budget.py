"""Rate budgets: requests and tokens per minute per provider and model, shared by every
driver of a process, or of a fleet through PostgreSQL (docs/rate-budgets.md).

::

    from agentcore.drivers.rate_budget import RateBudget, RateLimit, Rates, set_process_budget

    set_process_budget(RateBudget({"anthropic": Rates(requests=RateLimit(50))}))
"""

from ._common.ratebucket import RateLimit as RateLimit
from ._common.ratelimit import MemoryRateStore as MemoryRateStore
from ._common.ratelimit import RateBudget as RateBudget
from ._common.ratelimit import Rates as Rates
from ._common.ratelimit import RateStore as RateStore
from ._common.ratelimit import Ticket as Ticket
from ._common.ratelimit import header_limits as header_limits
from ._common.ratelimit import process_budget as process_budget
from ._common.ratelimit import set_process_budget as set_process_budget
from ._common.ratestore_postgres import PostgresRateStore as PostgresRateStore

__all__ = [
    "MemoryRateStore",
    "PostgresRateStore",
    "RateBudget",
    "RateLimit",
    "RateStore",
    "Rates",
    "Ticket",
    "header_limits",
    "process_budget",
    "set_process_budget",
]
