"""The definition two workers serve in ``test_rate_budget_workers.py``: an OpenAI-compatible
model at ``RATE_TEST_URL`` (a ``LimitedServer``), every worker's calls counted against one
process budget whose buckets live in the test database (``DURABLE_TEST_DB``), so the
workers share it."""

from __future__ import annotations

import os

from agentcore.drivers.rate_budget import (
    PostgresRateStore,
    RateBudget,
    RateLimit,
    Rates,
    set_process_budget,
)
from agentcore.drivers.registry import get_driver
from agentcore.durable import Definitions

LIMIT = int(os.environ.get("RATE_TEST_LIMIT", "10"))
WINDOW = float(os.environ.get("RATE_TEST_WINDOW", "2"))

set_process_budget(
    RateBudget(
        {"openai": Rates(requests=RateLimit(LIMIT, WINDOW))},
        store=PostgresRateStore(os.environ["DURABLE_TEST_DB"]),
    )
)

definitions = Definitions()
definitions.define(
    "limited",
    model=get_driver("openai/fake-model", base_url=os.environ["RATE_TEST_URL"], api_key="k"),
)
