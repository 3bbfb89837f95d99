"""The installed import names: ``agentcore.drivers`` and ``agentcore.presenters``, and the
old top-level spellings kept for one release as the very same modules.

Each check runs in a fresh interpreter (the alias finder and ``sys.modules`` are process
state) from a folder outside the checkout, as a user's program would.
"""

from __future__ import annotations

import pathlib
import subprocess
import sys
import textwrap

import pytest

ROOT = pathlib.Path(__file__).parents[2]


def _run(code: str, cwd: pathlib.Path) -> str:
    result = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def test_the_drivers_and_presenters_live_inside_agentcore(tmp_path: pathlib.Path) -> None:
    out = _run(
        """
        import agentcore.drivers.scripted, agentcore.presenters
        from agentcore.presenters import RecordingPresenter
        print(agentcore.drivers.scripted.__spec__.name, RecordingPresenter.__module__)
        """,
        tmp_path,
    )
    assert out == "agentcore.drivers.scripted agentcore.presenters.recording"


def test_importing_agentcore_loads_no_plugin(tmp_path: pathlib.Path) -> None:
    """The alias finder is installed by ``import agentcore`` without importing either."""
    out = _run(
        """
        import sys, agentcore, agentcore.agent, agentcore.cli, agentcore.journal
        print(sorted(m for m in sys.modules if m.split(".")[:2] in (
            ["agentcore", "drivers"], ["agentcore", "presenters"], ["drivers"], ["presenters"])))
        """,
        tmp_path,
    )
    assert out == "[]"


OLD_AND_NEW = """
    import warnings
    import agentcore
    from agentcore.drivers.scripted import ScriptedDriver, text_turn
    from agentcore.presenters import RecordingPresenter
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        import drivers.scripted, drivers.registry
        from presenters import RecordingPresenter as OldRecording
        import presenters.recording
    import agentcore.drivers.registry as registry
    print(drivers.scripted is agentcore.drivers.scripted, drivers.registry is registry)
    recording = presenters.recording
    print(OldRecording is RecordingPresenter, recording.RecordingPresenter is OldRecording)
    print(isinstance(drivers.scripted.ScriptedDriver([text_turn("x")]), ScriptedDriver))
    print(drivers.scripted.__spec__.name, drivers.__name__, hasattr(drivers.scripted, "__path__"))
    print(sorted({(w.category.__name__, w.filename == "<string>") for w in caught}))
    print(*sorted(str(w.message).split(":")[0] for w in caught), sep="; ")
"""


@pytest.mark.parametrize("where", ["outside", "checkout root"])
def test_the_old_spellings_are_the_same_modules_with_a_warning(
    where: str, tmp_path: pathlib.Path
) -> None:
    """From the checkout's root the old names are also folders on ``sys.path``: they must
    still give the one module object, not a second copy of the same files."""
    out = _run(OLD_AND_NEW, tmp_path if where == "outside" else ROOT).splitlines()
    assert out == [
        "True True",
        "True True",
        "True",
        "agentcore.drivers.scripted agentcore.drivers False",
        "[('DeprecationWarning', True)]",
        "the top-level package 'drivers' is now 'agentcore.drivers'; "
        "the top-level package 'presenters' is now 'agentcore.presenters'",
    ]


def test_a_projects_own_presenters_package_is_left_alone(tmp_path: pathlib.Path) -> None:
    """repros/newuser/package_name_clash.py: a project with its own ``presenters/`` (an MVP
    app) and ``drivers/`` (hardware) imports its own packages, and agentcore's presenters
    under their new name."""
    for name in ("presenters", "drivers"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "__init__.py").write_text(f"MINE = {name!r}\n")
        (tmp_path / name / "views.py").write_text("VIEW = 1\n")
    out = _run(
        """
        import agentcore
        from agentcore.presenters import RecordingPresenter
        import presenters, presenters.views, drivers
        print(presenters.MINE, drivers.MINE, presenters.views.VIEW, RecordingPresenter.__name__)
        """,
        tmp_path,
    )
    assert out == "presenters drivers 1 RecordingPresenter"


def test_entry_points_name_the_new_modules() -> None:
    """The registry, price table and protocols load under their new names only, so a plugin
    lookup and a direct import share one module."""
    out = _run(
        """
        from importlib.metadata import entry_points
        for group in ("agentcore.drivers", "agentcore.prices", "agentcore.protocols"):
            for e in entry_points(group=group):
                print(e.value.split(".")[:2])
        """,
        ROOT,
    ).splitlines()
    assert len(out) == 6 and set(out) <= {
        "['agentcore', 'drivers']",
        "['agentcore', 'presenters']",
    }
