"""Output truncation: limits always hold, what is kept is a whole-line head or tail.

Tests the private module ``agentcore._coding.truncate``: head and tail truncation."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from agentcore._coding.truncate import format_size, truncate_head, truncate_line, truncate_tail

texts = st.lists(st.text(max_size=40).map(lambda s: s.replace("\n", "")), max_size=60).map(
    "\n".join
)
limits = st.tuples(st.integers(1, 30), st.integers(1, 400))


def _size(text: str) -> int:
    return len(text.encode("utf-8"))


@given(texts, limits)
def test_head_keeps_a_prefix_of_whole_lines_within_both_limits(text: str, limit: tuple) -> None:
    max_lines, max_bytes = limit
    result = truncate_head(text, max_lines, max_bytes)
    if not result.truncated:
        assert result.content == text
        return
    assert result.output_lines <= max_lines
    assert _size(result.content) <= max_bytes == result.max_bytes
    kept = text.split("\n")[: result.output_lines]
    assert result.content == "\n".join(kept)
    assert result.first_line_too_long == (result.output_lines == 0)
    assert result.total_bytes == _size(text)


@given(texts, limits)
def test_tail_keeps_a_suffix_within_both_limits(text: str, limit: tuple) -> None:
    max_lines, max_bytes = limit
    result = truncate_tail(text, max_lines, max_bytes)
    assert _size(result.content) <= max_bytes or not result.truncated
    assert result.output_lines <= max_lines or not result.truncated
    assert (text.removesuffix("\n") if result.truncated else text).endswith(result.content)
    if result.truncated and not result.partial_last_line:
        lines = text.split("\n")
        if lines[-1] == "":
            lines.pop()
        assert result.content == "\n".join(lines[len(lines) - result.output_lines :])


def test_the_2500_line_file_stops_at_2000_lines_and_500_lines_of_210_bytes_at_50_kb() -> None:
    lines = "\n".join(f"line {i}" for i in range(1, 2501))
    result = truncate_head(lines)
    assert (result.truncated_by, result.output_lines, result.total_lines) == ("lines", 2000, 2500)
    wide = "\n".join("x" * 210 for _ in range(500))
    result = truncate_head(wide)
    assert result.truncated_by == "bytes"
    assert result.output_lines == 51200 // 211  # 242 lines of 210 bytes and a newline
    assert result.output_bytes <= 51200


def test_an_overlong_single_line_keeps_its_end_in_the_tail() -> None:
    result = truncate_tail("é" * 100, max_bytes=51)
    assert result.partial_last_line and result.content == "é" * 25


def test_line_cut_and_sizes() -> None:
    assert truncate_line("a" * 10, 5) == ("aaaaa... [line truncated]", True)
    assert truncate_line("abc", 5) == ("abc", False)
    assert [format_size(n) for n in (10, 51200, 5 * 1024 * 1024)] == ["10 B", "50.0 KB", "5.0 MB"]
