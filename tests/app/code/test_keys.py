"""The key decoder and the line editor: examples, and properties over any input split.

Tests the private module ``agentcore._app.code``: the ``agentcore code`` app's own parts."""

from __future__ import annotations

import itertools

from hypothesis import given
from hypothesis import strategies as st

from agentcore._app.code.keys import (
    END,
    INTERRUPT,
    REDRAW,
    SUBMIT,
    Decoder,
    Editor,
    Key,
    decode,
    edit,
    flush,
)


def keys_of(data: bytes) -> list[Key]:
    state, keys = decode(Decoder(), data)
    state, more = flush(state)
    return keys + more


def test_named_keys_and_sequences() -> None:
    data = b"a\x1b[A\x1b[B\x1b[C\x1b[D\x1b[H\x1b[F\x1b[3~\x1b[1~\x1b[4~\x1bOA\x7f\x08\r\n\t"
    assert [k.name for k in keys_of(data)] == [
        "char",
        "up",
        "down",
        "right",
        "left",
        "home",
        "end",
        "delete",
        "home",
        "end",
        "up",
        "backspace",
        "backspace",
        "enter",
        "enter",
        "tab",
    ]


def test_control_keys_modifiers_and_unknown_sequences() -> None:
    data = b"\x03\x04\x01\x05\x15\x0b\x17\x0c\x1b\r\x1b[1;5D\x1b[1;3C\x1b[99X\x1b[15~\x07"
    assert [k.name for k in keys_of(data)] == [
        "ctrl-c",
        "ctrl-d",
        "home",
        "end",
        "ctrl-u",
        "ctrl-k",
        "ctrl-w",
        "ctrl-l",
        "alt-enter",
        "word-left",
        "word-right",
    ]


def test_utf8_split_across_reads_and_invalid_bytes() -> None:
    state, keys = decode(Decoder(), "é€".encode()[:3])
    assert keys == [Key("char", "é")] and state.pending == b"\xe2"
    state, keys = decode(state, "€".encode()[1:] + b"\xff")
    assert keys == [Key("char", "€"), Key("char", "\ufffd")] and state == Decoder()


def test_bracketed_paste_is_one_key_with_its_newlines() -> None:
    state, keys = decode(Decoder(), b"x\x1b[200~line 1\r\nline 2\rline 3\x1b[2")
    assert keys == [Key("char", "x")] and state.paste is not None
    state, keys = decode(state, b"01~y")
    assert keys == [Key("paste", "line 1\nline 2\nline 3"), Key("char", "y")]
    assert state == Decoder()


def test_a_lone_escape_waits_for_a_silence() -> None:
    state, keys = decode(Decoder(), b"\x1b")
    assert keys == [] and state.pending == b"\x1b"
    assert flush(state) == (Decoder(), [Key("escape")])
    state, keys = decode(state, b"[A")  # the rest came in time: an arrow
    assert keys == [Key("up")]
    assert keys_of(b"\x1bx") == [Key("escape"), Key("char", "x")]
    assert keys_of(b"\x1b\x1b[A") == [Key("escape"), Key("up")]


FRAGMENTS = st.sampled_from(
    [
        b"a",
        b"Z",
        b" ",
        "é".encode(),
        "€".encode(),
        "😀".encode(),
        b"\r",
        b"\x7f",
        b"\x03",
        b"\x1b[A",
        b"\x1b[3~",
        b"\x1b[1;5C",
        b"\x1bOB",
        b"\x1b\r",
        b"\x1b[200~pasted\r\ntext \x1b[201~",
        b"\x1b[200~\x1b[A\x03\x1b[201~",
        b"\xff",
        b"\xe2\x28",
    ]
)


@st.composite
def split(draw: st.DrawFn, data: st.SearchStrategy[bytes]) -> tuple[bytes, list[bytes]]:
    whole = draw(data)
    cuts = sorted(draw(st.lists(st.integers(0, len(whole)), max_size=12)))
    bounds = [0, *cuts, len(whole)]
    return whole, [whole[a:b] for a, b in itertools.pairwise(bounds)]


def _decode_all(chunks: list[bytes]) -> tuple[Decoder, list[Key]]:
    state, keys = Decoder(), []
    for chunk in chunks:
        state, more = decode(state, chunk)
        keys += more
    return state, keys


@given(split(st.lists(FRAGMENTS, max_size=20).map(b"".join)))
def test_keys_do_not_depend_on_how_input_was_split(case: tuple[bytes, list[bytes]]) -> None:
    whole, chunks = case
    assert _decode_all(chunks) == decode(Decoder(), whole)


@given(split(st.binary(max_size=60)))
def test_any_bytes_decode_the_same_however_split(case: tuple[bytes, list[bytes]]) -> None:
    whole, chunks = case
    assert _decode_all(chunks) == decode(Decoder(), whole)


@given(st.text(st.characters(blacklist_categories=("Cc", "Cs")), min_size=1, max_size=40))
def test_typed_text_is_submitted_as_typed(text: str) -> None:
    editor = Editor()
    for key in keys_of(text.encode() + b"\r")[:-1]:
        editor, action = edit(editor, key)
        assert action is None
    editor, action = edit(editor, Key("enter"))
    if text.strip():
        assert action == SUBMIT and editor.history == (text,) and editor.text == ""
    else:
        assert action is None and editor.text == text


EDITING = st.sampled_from(
    [
        Key("char", "x"),
        Key("char", "y"),
        Key("char", " "),
        Key("paste", "p\nq"),
        Key("left"),
        Key("right"),
        Key("home"),
        Key("end"),
        Key("backspace"),
        Key("delete"),
        Key("ctrl-u"),
        Key("ctrl-k"),
        Key("ctrl-w"),
        Key("word-left"),
        Key("word-right"),
        Key("alt-enter"),
        Key("up"),
        Key("down"),
        Key("enter"),
    ]
)


@given(st.lists(EDITING, max_size=60))
def test_the_editor_matches_a_list_of_characters(keys: list[Key]) -> None:
    """Inserting, moving and deleting agree with a plain list and a cursor index."""
    editor = Editor(history=("earlier",))
    for key in keys:
        before = editor
        editor, action = edit(editor, key)
        assert 0 <= editor.cursor <= len(editor.text)
        text, at = list(before.text), before.cursor
        if key.name in ("char", "paste"):
            assert editor.text == "".join(text[:at] + list(key.text) + text[at:])
            assert editor.cursor == at + len(key.text)
        elif key.name == "backspace":
            expected = text[: at - 1] + text[at:] if at else text
            assert editor.text == "".join(expected)
        elif key.name == "delete":
            assert editor.text == "".join(text[:at] + text[at + 1 :])
        elif key.name in ("left", "right", "home", "end", "word-left", "word-right"):
            assert editor.text == before.text
        elif key.name == "enter" and action == SUBMIT:
            assert editor.history[-1] == before.text and editor.text == ""


def test_history_browsing_keeps_the_draft() -> None:
    editor = Editor()
    for line in ("first", "second"):
        for key in keys_of(line.encode()):
            editor, _ = edit(editor, key)
        editor, _ = edit(editor, Key("enter"))
    editor, _ = edit(editor, Key("char", "d"))
    editor, _ = edit(editor, Key("up"))
    assert editor.text == "second"
    editor, _ = edit(editor, Key("up"))
    editor, _ = edit(editor, Key("up"))
    assert editor.text == "first" and editor.cursor == 5
    editor, _ = edit(editor, Key("down"))
    editor, _ = edit(editor, Key("down"))
    assert editor.text == "d" and editor.browsing is None
    editor, action = edit(editor, Key("enter"))
    assert action == SUBMIT and editor.history == ("first", "second", "d")


def test_actions_ctrl_c_ctrl_d_ctrl_l() -> None:
    editor = Editor("abc", 1)
    assert edit(editor, Key("ctrl-c")) == (Editor(), INTERRUPT)
    assert edit(editor, Key("ctrl-d")) == (Editor("ac", 1), None)
    assert edit(Editor(), Key("ctrl-d")) == (Editor(), END)
    assert edit(editor, Key("ctrl-l")) == (editor, REDRAW)
    assert edit(Editor("  "), Key("enter")) == (Editor("  "), None)
    assert edit(Editor("a b c", 5), Key("ctrl-w")) == (Editor("a b ", 4), None)
