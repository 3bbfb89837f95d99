"""The edit matcher: exact first, then normalised; the change stays inside its span.

Tests the private module ``agentcore._coding.edit_match``: the edit matcher."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from agentcore._coding.edit_match import EditError, apply_edit, locate, normalise, unified_diff

FANCY = {
    "'": "\u2018\u2019\u201a\u201b",
    '"': "\u201c\u201d\u201e\u201f",
    "-": "\u2010\u2011\u2012\u2013\u2014\u2015\u2212",
    " ": "\u00a0\u2002\u2003\u2009\u200a\u202f\u205f\u3000",
}
ascii_lines = st.lists(
    st.text(alphabet="abcdefgh '\"-=()", min_size=1, max_size=20), min_size=1, max_size=12
)


@given(st.text(max_size=200))
def test_normalise_maps_every_character_to_its_source(text: str) -> None:
    norm, starts, ends = normalise(text)
    assert len(norm) == len(starts) == len(ends)
    assert all(0 <= s < e <= len(text) for s, e in zip(starts, ends, strict=True))
    assert starts == sorted(starts)
    assert normalise(norm)[0] == norm  # idempotent


@given(ascii_lines, st.data())
def test_typographic_variants_in_the_file_still_match_the_plain_text(
    lines: list[str], data: st.DataObject
) -> None:
    plain = "\n".join(lines)
    fancy = "".join(
        data.draw(st.sampled_from(FANCY[c])) if c in FANCY and data.draw(st.booleans()) else c
        for c in plain
    )
    first, last = sorted(
        data.draw(st.tuples(st.integers(0, len(lines) - 1), st.integers(0, len(lines) - 1)))
    )
    old = "\n".join(lines[first : last + 1])
    assume(old.strip() and normalise(plain)[0].count(normalise(old)[0]) == 1)
    result, match, end = apply_edit(fancy, old, "REPLACED")
    assert result[: match.start] == fancy[: match.start]  # untouched before
    assert result[end:] == fancy[match.end :]  # untouched after
    assert result[match.start : end] == "REPLACED"
    assert normalise(fancy[match.start : match.end])[0] == normalise(old)[0]


@given(st.text(max_size=60), st.text(min_size=1, max_size=10), st.text(max_size=10))
def test_an_exact_unique_match_is_a_plain_replace(prefix: str, old: str, new: str) -> None:
    content = prefix + old
    assume(content.count(old) == 1 and "\r" not in content + old + new and new != old)
    result, match, _ = apply_edit(content, old, new)
    assert not match.fuzzy
    assert result == content.replace(old, new)


@pytest.mark.parametrize(
    ("content", "old", "new", "expected"),
    [
        ("x = \uff41\uff42\uff43\n", "x = abc", "x = d", "x = d\n"),  # fullwidth, NFKC
        ("caf\u0065\u0301 = 1\n", "caf\u00e9 = 1", "cafe = 2", "cafe = 2\n"),  # decomposed
        ("s = \u2018a\u2019 + \u201cb\u201d\n", "s = 'a' + \"b\"", "s = 1", "s = 1\n"),
        ("a \u2014 b \u2212 c\n", "a - b - c", "abc", "abc\n"),  # em dash, minus sign
        ("if\u00a0x:\u3000y\n", "if x: y", "if z", "if z\n"),  # NBSP, ideographic space
        ("keep\nold   \nkeep\n", "old", "new", "keep\nnew   \nkeep\n"),  # exact wins
        ("keep\nalpha   \nbeta\nkeep\n", "alpha\nbeta", "x", "keep\nx\nkeep\n"),  # trailing ws
    ],
)
def test_fuzzy_cases(content: str, old: str, new: str, expected: str) -> None:
    assert apply_edit(content, old, new)[0] == expected


def test_crlf_lines_stay_crlf_and_untouched_lines_byte_identical() -> None:
    content = "one\r\ntwo \u2013 2\r\nthree\r\nfour\n"  # mixed: the last line is LF
    result, _, _ = apply_edit(content, "two - 2\nthree", "TWO\nTHREE")
    assert result == "one\r\nTWO\r\nTHREE\r\nfour\n"


def test_duplicates_are_refused_with_their_count_in_both_spaces() -> None:
    with pytest.raises(EditError, match="found 2 occurrences"):
        locate("a = 1\nb\na = 1\n", "a = 1")
    with pytest.raises(EditError, match="found 3 occurrences"):
        locate("\u201cq\u201d \u201eq\u201f \u201cq\u201c", '"q"')  # none exact, 3 normalised


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ("", "x", "empty"),
        ("zzz", "x", "not found"),
        ("a = 1", "a = 1", "nothing was changed"),
        ("  \n ", "x", "only whitespace"),
    ],
)
def test_clear_errors(old: str, new: str, message: str) -> None:
    with pytest.raises(EditError, match=message):
        apply_edit("a = 1\n   \n", old, new)


def test_diff_has_real_line_numbers_and_the_first_changed_line() -> None:
    old = "".join(f"line {i}\n" for i in range(1, 101))
    result, match, end = apply_edit(old, "line 50\nline 51\n", "fifty\n")
    diff, first = unified_diff(old, result, match.start, match.end, end, "f.txt")
    assert first == 50
    assert "@@ -47,8 +47,7 @@" in diff
    assert "-line 50\n-line 51\n+fifty" in diff
    assert diff.startswith("--- a/f.txt\n+++ b/f.txt\n")


def test_decomposed_accent_in_old_text_matches_precomposed_file() -> None:
    content = "name = 'Zo\u00eb'\n"
    old = unicodedata.normalize("NFD", "name = 'Zo\u00eb'")
    assert apply_edit(content, old, "name = 'Zoe'")[0] == "name = 'Zoe'\n"
