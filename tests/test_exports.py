"""Every public module's ``__all__`` is complete, sorted, and names things that exist."""

import importlib
import pkgutil
import re

import pytest

import agentcore
from agentcore import drivers, presenters


def _public_modules() -> list[str]:
    names = []
    for pkg in (agentcore, drivers, presenters):
        names.append(pkg.__name__)
        for info in pkgutil.iter_modules(pkg.__path__):
            if not info.name.startswith("_") and info.name != "__main__":
                names.append(f"{pkg.__name__}.{info.name}")
    return names


@pytest.mark.parametrize("name", _public_modules())
def test_all_is_sorted_and_resolves(name: str) -> None:
    module = importlib.import_module(name)
    exported = getattr(module, "__all__", None)
    if exported is None:
        assert not [n for n in vars(module) if not n.startswith("_")] or name in (
            "drivers",
            "presenters",
        ), f"{name} has public names but no __all__"
        return
    assert list(exported) == sorted(exported), f"{name}.__all__ is not sorted"
    assert len(set(exported)) == len(exported), f"{name}.__all__ has duplicates"
    for attr in exported:
        assert hasattr(module, attr), f"{name}.__all__ names missing {attr!r}"


@pytest.mark.parametrize("name", _public_modules())
def test_all_is_complete(name: str) -> None:
    """A name imported with the ``X as X`` re-export idiom must be listed in __all__."""
    module = importlib.import_module(name)
    exported = set(getattr(module, "__all__", ()))
    source = module.__file__ or ""
    with open(source, encoding="utf-8") as f:
        text = f.read()
    reexported = set(re.findall(r"\b(\w+) as \1\b", text))
    assert reexported <= exported, f"{name} re-exports {sorted(reexported - exported)} unlisted"
