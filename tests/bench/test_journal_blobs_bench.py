"""The journal-growth bench (``python -m bench journal_blobs``) does not rot, and its
claim holds at a small scale: twenty prompts with the same image store it once."""

from __future__ import annotations

import importlib
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_twenty_prompts_with_one_image_store_it_once(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.syspath_prepend(str(ROOT))
    bench = importlib.import_module("bench.bench_journal_blobs")
    monkeypatch.setattr(bench, "IMAGE_BYTES", 100_000)
    figures = bench.measure(tmp_path)
    assert figures["jsonl_blob_count"] == figures["sqlite_blob_count"] == 1
    assert figures["jsonl_blobs"] == figures["sqlite_blobs"] == 100_000
    assert figures["jsonl_lines"] < 40_000 and figures["sqlite_lines"] < 40_000
    assert figures["inline_would_be"] > 20 * 100_000
