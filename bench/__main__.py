"""Run every benchmark module in this folder (``bench_*.py``), or the ones named.

Each module has a ``main() -> None`` that prints its figures. Usage::

    python -m bench              # all
    python -m bench core loop    # bench_core.py and bench_loop.py
"""

from __future__ import annotations

import importlib
import pathlib
import sys


def main(argv: list[str]) -> None:
    here = pathlib.Path(__file__).parent
    names = sorted(p.stem.removeprefix("bench_") for p in here.glob("bench_*.py"))
    chosen = argv or names
    unknown = sorted(set(chosen) - set(names))
    if unknown:
        raise SystemExit(f"unknown benchmark(s) {unknown}; available: {names}")
    for name in chosen:
        print(f"== bench_{name}", flush=True)
        importlib.import_module(f"bench.bench_{name}").main()


if __name__ == "__main__":
    main(sys.argv[1:])
