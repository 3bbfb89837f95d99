"""The Mealy machine: a pure processor run per agent, its states kept in a store.

See docs/machine.md for stores, re-feeding and observers.
"""

from ._machine import DEFAULT_MAX_DEPTH as DEFAULT_MAX_DEPTH
from ._machine import MealyMachine as MealyMachine
from ._machine import Step as Step
from ._machine import StepObserver as StepObserver
from ._machine import create_mealy_machine as create_mealy_machine

__all__ = [
    "DEFAULT_MAX_DEPTH",
    "MealyMachine",
    "Step",
    "StepObserver",
    "create_mealy_machine",
]
