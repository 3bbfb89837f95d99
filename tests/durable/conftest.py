"""The durable tests import ``durable_app`` and ``harness`` from this folder (the worker
processes import ``durable_app`` too, by ``PYTHONPATH``)."""

from __future__ import annotations

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).parent))
