"""A fresh machine: build the sdist and, from it, the wheel; install the wheel with every
extra into a clean venv; run the README's examples from a folder outside the checkout.

Offline and honest about it: the build runs without isolation on the project venv's
setuptools (the ``dev`` extra brings ``build`` and a recent setuptools); the clean venv
(no system site-packages, no checkout on its path) gets the wheel, and sees the project
venv's site-packages only after its own, for the third-party dependencies: pip then
resolves every extra of the wheel with ``--no-index``, so a dependency an extra names and
nothing installs fails here. The project venv's editable finder is a ``.pth`` file there,
which a path added this way does not run, so ``agentcore`` can only come from the wheel.
"""

from __future__ import annotations

import email.parser
import pathlib
import re
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import zipfile

import pytest

ROOT = pathlib.Path(__file__).parents[2]
SOURCES = {
    "agentcore": "agentcore",
    "drivers": "agentcore/drivers",
    "presenters": "agentcore/presenters",
}
"""Each source folder of the checkout and where the wheel puts it."""

pytestmark = pytest.mark.slow


def _run(*args: str | pathlib.Path, cwd: pathlib.Path, timeout: float = 600) -> str:
    result = subprocess.run(
        [str(a) for a in args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
        env={"PATH": "/usr/bin:/bin", "HOME": str(cwd), "PIP_NO_INPUT": "1"},
    )
    assert result.returncode == 0, f"{args}:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
    return result.stdout


def _checkout_copy(dest: pathlib.Path) -> pathlib.Path:
    """The project's files (links kept) without the venv, caches and build leftovers, so
    the build leaves the checkout untouched."""
    ignore = shutil.ignore_patterns(
        ".venv", ".git", "build", "dist", "*.egg-info", "__pycache__", ".*_cache", ".hypothesis"
    )
    return pathlib.Path(shutil.copytree(ROOT, dest, symlinks=True, ignore=ignore))


def _tree_files() -> set[str]:
    """Every file of the three packages, named where the wheel must hold it."""
    found = set()
    for folder, target in SOURCES.items():
        for path in (ROOT / folder).rglob("*"):
            parts = path.relative_to(ROOT / folder).parts
            if path.is_file() and "__pycache__" not in parts and path.suffix != ".pyc":
                if folder == "agentcore" and parts[0] in ("drivers", "presenters"):
                    continue  # the links: counted under their own folders
                found.add("/".join((target, *parts)))
    return found


def readme_examples() -> list[str]:
    """The README's ``python`` blocks that run (a ``python sketch`` block is a shape)."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    return re.findall(r"^```python\n(.*?)^```", text, re.S | re.M)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[str, pathlib.Path]:
    work = tmp_path_factory.mktemp("fresh")
    source = _checkout_copy(work / "source")
    dist = work / "dist"
    # no --sdist/--wheel: build makes the sdist, then the wheel from the unpacked sdist
    _run(sys.executable, "-m", "build", "--no-isolation", "--outdir", dist, source, cwd=work)
    (sdist,) = dist.glob("*.tar.gz")
    (wheel,) = dist.glob("*.whl")
    return {"work": work, "sdist": sdist, "wheel": wheel}


def test_the_wheel_holds_every_file_of_the_packages_at_its_new_place(
    built: dict[str, pathlib.Path],
) -> None:
    with zipfile.ZipFile(built["wheel"]) as wheel:
        names = set(wheel.namelist())
        (metadata,) = (n for n in names if n.endswith(".dist-info/METADATA"))
        meta = email.parser.Parser().parsestr(wheel.read(metadata).decode())
        (entry_points,) = (n for n in names if n.endswith(".dist-info/entry_points.txt"))
        entries = wheel.read(entry_points).decode()
    assert meta["Name"] == "agentcore-engine"
    missing = _tree_files() - names
    assert not missing, f"not in the wheel: {sorted(missing)}"
    tops = {n.split("/")[0] for n in names if not n.split("/")[0].endswith(".dist-info")}
    assert tops == {"agentcore"}, "the wheel installs top-level names besides agentcore"
    values = re.findall(r"=\s*(\S+)", entries)
    assert values and all(v.startswith("agentcore.") for v in values), entries


def test_the_sdist_holds_what_the_wheel_is_built_from(built: dict[str, pathlib.Path]) -> None:
    with tarfile.open(built["sdist"]) as sdist:
        names = {m.name.split("/", 1)[1] for m in sdist.getmembers() if "/" in m.name}
    assert {"pyproject.toml", "README.md"} <= names
    assert not _tree_files() - names, "the sdist misses files the wheel needs"


@pytest.fixture(scope="module")
def venv(built: dict[str, pathlib.Path]) -> pathlib.Path:
    """A clean venv holding the wheel, every extra resolved offline."""
    work = built["work"]
    env = work / "venv"
    base = getattr(sys, "_base_executable", sys.executable)
    # no pip or setuptools of its own (3.11's are old): the project venv's pip installs
    _run(base, "-m", "venv", "--without-pip", env, cwd=work)
    python = env / "bin" / "python"
    pip = (sys.executable, "-m", "pip", "--python", python)
    site = _run(python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))", cwd=work)
    # after its own site-packages: the third-party dependencies, already installed here
    (pathlib.Path(site.strip()) / "_project_dependencies.pth").write_text(
        sysconfig.get_path("purelib") + "\n"
    )
    _run(*pip, "install", "--no-deps", "--no-index", built["wheel"], cwd=work)
    with zipfile.ZipFile(built["wheel"]) as wheel:
        (metadata,) = (n for n in wheel.namelist() if n.endswith(".dist-info/METADATA"))
        meta = email.parser.Parser().parsestr(wheel.read(metadata).decode())
    extras = ",".join(meta.get_all("Provides-Extra") or ())
    _run(
        *pip, "install", "--no-index", "--find-links", built["wheel"].parent,
        f"agentcore-engine[{extras}]", cwd=work,
    )  # fmt: skip
    return env


def test_the_venv_imports_the_wheel_not_the_checkout(
    venv: pathlib.Path, tmp_path: pathlib.Path
) -> None:
    out = _run(
        venv / "bin" / "python",
        "-c",
        "import agentcore, agentcore.drivers.registry, agentcore.presenters.console\n"
        "for m in (agentcore, agentcore.drivers.registry, agentcore.presenters.console):\n"
        "    print(m.__file__)",
        cwd=tmp_path,
    )
    purelib = _run(
        venv / "bin" / "python", "-c", "import sysconfig; print(sysconfig.get_path('purelib'))",
        cwd=tmp_path,
    ).strip()  # fmt: skip
    files = out.split()
    assert len(files) == 3 and all(f.startswith(purelib + "/agentcore/") for f in files), out
    assert _run(venv / "bin" / "agentcore", "--help", cwd=tmp_path).startswith("usage: agentcore")


@pytest.mark.parametrize("number", range(len(readme_examples())))
def test_a_readme_example_runs_from_the_wheel_outside_the_checkout(
    number: int, venv: pathlib.Path, tmp_path: pathlib.Path
) -> None:
    """Saved as a script in an empty folder and run with the clean venv's python."""
    script = tmp_path / f"readme_example_{number}.py"
    script.write_text(readme_examples()[number], encoding="utf-8")
    printed = _run(
        venv / "bin" / "python", "-W", "error::DeprecationWarning:__main__", script, cwd=tmp_path
    )
    assert printed.strip(), "the example printed nothing"


def test_the_demo_runs_from_the_wheel(venv: pathlib.Path, tmp_path: pathlib.Path) -> None:
    """``make run``'s demo reads its recorded model from the package data."""
    out = _run(venv / "bin" / "python", "-m", "agentcore.demo", cwd=tmp_path)
    assert "exactly those delivered: True" in out
