from __future__ import annotations

import pytest

from arena.runtime.wire import LineBuffer, WireError, canonical, decode, encode


def test_encode_is_one_compact_line() -> None:
    assert encode({"type": "hello", "protocol": 1}) == b'{"type":"hello","protocol":1}\n'
    assert encode({"s": "é"}) == '{"s":"é"}\n'.encode()


@pytest.mark.parametrize(
    "line",
    [b"not json", b"[1, 2]", b"3", b'"text"', b"\xff\xfe{}", b'{"a": 1', b""],
)
def test_decode_refuses_anything_but_one_object(line: bytes) -> None:
    with pytest.raises(WireError):
        decode(line)


def test_decode_accepts_an_object_with_or_without_newline() -> None:
    assert decode(b'{"id": 1}\n') == {"id": 1}
    assert decode(b'{"id": 1}') == {"id": 1}


def test_canonical_tells_true_from_one() -> None:
    assert canonical(True) != canonical(1)
    assert canonical({"b": 1, "a": 2}) == canonical({"a": 2, "b": 1})


def test_line_buffer_assembles_chunks_and_stamps_them() -> None:
    buffer = LineBuffer(100)
    buffer.feed(b'{"a":', 1.0)
    assert not buffer.lines
    buffer.feed(b'1}\n{"b":2}\n{"c"', 2.0)
    assert list(buffer.lines) == [(b'{"a":1}', 2.0), (b'{"b":2}', 2.0)]
    assert buffer.pending_bytes == 4


def test_line_buffer_flags_an_oversize_line_even_before_its_newline() -> None:
    buffer = LineBuffer(10)
    buffer.feed(b"x" * 11, 1.0)
    assert buffer.oversize
    buffer = LineBuffer(10)
    buffer.feed(b"0123456789\n", 1.0)  # exactly the limit is fine
    assert not buffer.oversize and len(buffer.lines) == 1
    buffer.feed(b"01234567890\n", 1.0)
    assert buffer.oversize
