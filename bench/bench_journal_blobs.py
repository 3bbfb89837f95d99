"""Journal growth with media: a 20-turn session that sends the same 1 MB image in every
user message, through an ``Agent`` (scripted model) on a JSONL file and a SQLite file.

The image is stored once beside the journal (``<file>.blobs/`` or ``agentcore_blobs``);
each prompt's line refers to it by its sha256. Printed: the bytes of the lines (or the
database file minus its blobs), the bytes of the blobs, and what the lines would hold
with the image inline (base64, in every prompt).

``AGENTCORE_BENCH_SCALE`` (default 1.0) scales the image size.
"""

from __future__ import annotations

import asyncio
import base64
import os
import tempfile
from pathlib import Path
from typing import Any

from agentcore import Agent
from agentcore.drivers.scripted import ScriptedDriver, text_turn
from agentcore.events import ImageContent, TextContent, UserMessage
from agentcore.journal import Journal, JsonlJournal, SqliteJournal

SCALE = float(os.environ.get("AGENTCORE_BENCH_SCALE", "1"))
TURNS = 20
IMAGE_BYTES = max(1024, int(1_000_000 * SCALE))


def image() -> ImageContent:
    """A 1 MB 'image' of random bytes (incompressible, as a photo is)."""
    return ImageContent("image/png", base64.b64encode(os.urandom(IMAGE_BYTES)).decode())


async def session(journal: Journal, picture: ImageContent) -> None:
    """``TURNS`` prompts, each with a question and ``picture``; a short answer each."""
    driver = ScriptedDriver([text_turn(f"answer {n}") for n in range(TURNS)])
    agent = Agent(driver, journal=journal, agent_id="growth")
    try:
        for n in range(TURNS):
            content = (TextContent(f"what changed in shot {n}?"), picture)
            await agent.prompt(UserMessage(f"u{n}", content))
    finally:
        await agent.aclose()


def _size(path: Path) -> int:
    if path.is_dir():
        return sum(p.stat().st_size for p in path.iterdir())
    return path.stat().st_size if path.exists() else 0


def measure(folder: Path) -> dict[str, Any]:
    """Run the session on each journal; the sizes in bytes."""
    picture = image()
    figures: dict[str, Any] = {"image_bytes": IMAGE_BYTES, "turns": TURNS}
    jsonl = JsonlJournal(folder / "growth.jsonl")
    asyncio.run(session(jsonl, picture))
    jsonl.close()
    figures["jsonl_lines"] = _size(jsonl.path)
    figures["jsonl_blobs"] = _size(jsonl.blobs.folder)
    figures["jsonl_blob_count"] = len(jsonl.blobs)
    sqlite = SqliteJournal(folder / "growth.db")
    asyncio.run(session(sqlite, picture))
    figures["sqlite_blob_count"] = len(sqlite.blobs)
    (blob_bytes,) = sqlite.database.query("SELECT sum(length(data)) FROM agentcore_blobs")[0]
    (line_bytes,) = sqlite.database.query("SELECT sum(length(event)) FROM agentcore_entries")[0]
    sqlite.close()
    figures["sqlite_blobs"] = int(blob_bytes)
    figures["sqlite_lines"] = int(line_bytes)
    figures["sqlite_file"] = _size(folder / "growth.db")
    figures["inline_would_be"] = TURNS * len(picture.data)
    return figures


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        f = measure(Path(folder))
    mb = 1_000_000
    print(f"{f['turns']} turns, the same {f['image_bytes'] / mb:.2f} MB image in each prompt")
    print(
        f"  JSONL:  lines {f['jsonl_lines'] / 1000:.1f} kB, blobs {f['jsonl_blobs'] / mb:.3f} MB "
        f"({f['jsonl_blob_count']} blob)"
    )
    print(
        f"  SQLite: entries {f['sqlite_lines'] / 1000:.1f} kB, blobs "
        f"{f['sqlite_blobs'] / mb:.3f} MB ({f['sqlite_blob_count']} blob), "
        f"file {f['sqlite_file'] / mb:.3f} MB"
    )
    print(f"  inline (before): {f['inline_would_be'] / mb:.1f} MB of base64 in the lines")


if __name__ == "__main__":
    main()
