"""The old spellings ``drivers[.x]`` and ``presenters[.x]``, kept for one release.

The drivers and presenters are installed inside the package, as ``agentcore.drivers`` and
``agentcore.presenters``: top-level packages named ``drivers`` and ``presenters`` collided
with other distributions and with a project's own folders of those names. Once
``agentcore`` is imported, the old spelling gives the very module object of the new one
(so ``isinstance`` checks and registries agree whichever spelling a caller used), with a
``DeprecationWarning``. A top-level package of that name that is not ours (a project's own
``presenters/``) is left alone: it is imported as if this finder were not there.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
import warnings
from collections.abc import Sequence
from importlib.machinery import ModuleSpec, PathFinder
from types import ModuleType

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing: 3 ms of `import agentcore`

if TYPE_CHECKING:
    from importlib.abc import Loader, MetaPathFinder
else:  # the import system only calls the methods; importlib.abc would load
    # importlib.resources (tempfile, shutil...), a third of `import agentcore`'s time
    Loader = MetaPathFinder = object

OLD_NAMES = ("drivers", "presenters")


class _AliasLoader(Loader):
    """Hands the import system the module already imported under the new name."""

    def __init__(self, target: str) -> None:
        self.target = target
        self.spec: ModuleSpec | None = None

    def create_module(self, spec: ModuleSpec) -> ModuleType:
        module = importlib.import_module(self.target)
        self.spec = module.__spec__
        return module

    def exec_module(self, module: ModuleType) -> None:
        # the import system set the alias's spec on the shared module: give it back its own
        module.__spec__ = self.spec
        if module.__name__.count(".") == 1:  # agentcore.drivers itself: warn once per name
            old = module.__name__.removeprefix("agentcore.")
            warnings.warn(
                f"the top-level package {old!r} is now {module.__name__!r}: write "
                f"{module.__name__} in your imports (the old spelling goes in the next release)",
                DeprecationWarning,
                stacklevel=2,  # the importer's line: warnings skips importlib's frames
            )


class _AliasFinder(MetaPathFinder):
    """Maps ``drivers[.x]``/``presenters[.x]`` to ``agentcore.drivers[.x]``/... ."""

    def find_spec(
        self,
        fullname: str,
        path: Sequence[str] | None = None,
        target: ModuleType | None = None,
    ) -> ModuleSpec | None:
        top = fullname.partition(".")[0]
        if top not in OLD_NAMES:
            return None
        new = f"agentcore.{fullname}"
        if top == fullname:
            if not _is_ours(top):
                return None
        elif sys.modules.get(top) is not sys.modules.get(f"agentcore.{top}"):
            return None  # the parent is someone else's package: so is this
        real = importlib.util.find_spec(new)
        if real is None:
            return None
        return ModuleSpec(
            fullname, _AliasLoader(new), is_package=real.submodule_search_locations is not None
        )


def _is_ours(name: str) -> bool:
    """Whether ``name`` names no regular package on ``sys.path`` or our own folder (a
    checkout's root holds ``drivers/`` itself, which ``agentcore/drivers`` links to)."""
    found = PathFinder.find_spec(name)
    if found is None or found.origin is None:  # nothing, or a plain folder (namespace)
        return True
    ours = importlib.util.find_spec(f"agentcore.{name}")
    return (
        ours is not None and ours.origin is not None and os.path.samefile(found.origin, ours.origin)
    )


def install() -> None:
    """Put the finder first on ``sys.meta_path`` (once), ahead of a checkout's own folders."""
    if not any(isinstance(finder, _AliasFinder) for finder in sys.meta_path):
        sys.meta_path.insert(0, _AliasFinder())
