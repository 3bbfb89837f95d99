"""The operations backends behave alike: the same errors for the same failures."""

from __future__ import annotations

import asyncio
import pathlib
from typing import Any

import pytest

from agentcore.coding import DirEntry, ShellOperations


def test_file_operations_round_trip_and_map_errors(ws: pathlib.Path, backend: Any) -> None:
    async def main() -> None:
        target = str(ws / "deep" / "dir" / "f.bin")
        data = bytes(range(256)) * 3
        await backend.write_bytes(target, data)
        assert await backend.read_bytes(target) == data
        assert sorted(await backend.list_dir(str(ws / "deep"))) == [DirEntry("dir", True)]
        with pytest.raises(FileNotFoundError):
            await backend.read_bytes(str(ws / "missing"))
        with pytest.raises(IsADirectoryError):
            await backend.read_bytes(str(ws / "deep"))
        with pytest.raises(NotADirectoryError):
            await backend.list_dir(target)
        with pytest.raises(FileNotFoundError):
            await backend.list_dir(str(ws / "missing"))
        assert await backend.realpath(str(ws / "x" / ".." / "deep")) == str(ws.resolve() / "deep")

    asyncio.run(main())


def test_shell_operations_run_in_their_own_environment(ws: pathlib.Path, sandbox: Any) -> None:
    out = bytearray()

    async def main() -> Any:
        return await sandbox.exec(
            "echo $PATH; echo ${HOME:-no-home}; echo $EXTRA",
            str(ws),
            env={"EXTRA": "it's here"},
            on_data=out.extend,
        )

    result = asyncio.run(main())
    assert result.exit_code == 0
    path, home, extra = out.decode().splitlines()
    assert path.endswith(":/usr/bin:/bin") and home == "no-home" and extra == "it's here"


def test_shell_operations_refuse_bad_input() -> None:
    with pytest.raises(ValueError, match="prefix"):
        ShellOperations(())

    async def main() -> None:
        await ShellOperations().exec("true", "/", env={"BAD NAME": "x"}, on_data=print)

    with pytest.raises(ValueError, match="identifiers"):
        asyncio.run(main())
