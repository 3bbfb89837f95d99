"""The Mealy machine: a pure processor run per agent, its states kept in a store.

See docs/machine.md for stores, re-feeding and observers.
"""

from ._core.machine import DEFAULT_MAX_DEPTH as DEFAULT_MAX_DEPTH
from ._core.machine import MealyMachine as MealyMachine
from ._core.machine import Runs as Runs
from ._core.machine import create_mealy_machine as create_mealy_machine
from ._core.observers import Step as Step
from ._core.observers import StepObserver as StepObserver

__all__ = [
    "DEFAULT_MAX_DEPTH",
    "MealyMachine",
    "Runs",
    "Step",
    "StepObserver",
    "create_mealy_machine",
]
