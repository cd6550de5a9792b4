"""net.decompress: transport and file gzip layers, bounded lazy output, bad input refused."""

from __future__ import annotations

import gzip
import tracemalloc
import zlib
from collections.abc import Iterable
from itertools import pairwise

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from auditor.errors import CompressionError
from auditor.net.decompress import GZIP_MAGIC, OUTPUT_CHUNK_BYTES, BodyDecoder

DOCUMENT = (
    b'<?xml version="1.0" encoding="UTF-8"?>\n'
    b'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
    + b"".join(b"<url><loc>https://example.com/p%d</loc></url>\n" % i for i in range(3000))
    + b"</urlset>\n"
)
# sitemaps.org: 52,428,800 bytes uncompressed at most; the reader stops one byte past it.
LIMIT_BYTES = 52_428_801
BOMB_BYTES = 200 * 1024 * 1024


def gzipped(data: bytes) -> bytes:
    return gzip.compress(data, mtime=0)


def pieces_of(decoder: BodyDecoder, chunks: Iterable[bytes]) -> list[bytes]:
    """Every piece the decoder yields for these chunks, then for close()."""
    out: list[bytes] = []
    for chunk in chunks:
        out.extend(decoder.feed(chunk))
    out.extend(decoder.close())
    return out


def decode(body: bytes, content_encoding: str | None = None) -> bytes:
    return b"".join(pieces_of(BodyDecoder(content_encoding), [body]))


def byte_by_byte(body: bytes) -> list[bytes]:
    return [body[i : i + 1] for i in range(len(body))]


@pytest.fixture(scope="module")
def bomb() -> bytes:
    """200 MiB of zeros as one gzip member, built in 1 MiB steps (about 200 KB compressed)."""
    compressor = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    zeros = bytes(1024 * 1024)
    parts = [compressor.compress(zeros) for _ in range(BOMB_BYTES // len(zeros))]
    parts.append(compressor.flush())
    return b"".join(parts)


# --- layers ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("content_encoding", [None, "", "identity"])
def test_plain_passthrough(content_encoding: str | None) -> None:
    decoder = BodyDecoder(content_encoding)
    assert b"".join(pieces_of(decoder, [DOCUMENT])) == DOCUMENT
    assert not decoder.compressed


def test_gzip_file_detected_by_magic_bytes() -> None:
    decoder = BodyDecoder()
    assert b"".join(pieces_of(decoder, [gzipped(DOCUMENT)])) == DOCUMENT
    assert decoder.compressed


@pytest.mark.parametrize("content_encoding", ["gzip", "x-gzip", "GZIP", " gzip "])
def test_transport_gzip(content_encoding: str) -> None:
    decoder = BodyDecoder(content_encoding)
    assert b"".join(pieces_of(decoder, [gzipped(DOCUMENT)])) == DOCUMENT
    assert not decoder.compressed  # the document itself was plain XML


def test_transport_deflate_is_zlib_wrapped() -> None:
    assert decode(zlib.compress(DOCUMENT), "deflate") == DOCUMENT


def test_transport_gzip_of_a_gzip_file() -> None:
    decoder = BodyDecoder("gzip")
    body = gzipped(gzipped(DOCUMENT))
    assert b"".join(pieces_of(decoder, [body])) == DOCUMENT
    assert decoder.compressed


def test_two_transport_codings_are_undone_last_first() -> None:
    body = zlib.compress(gzipped(DOCUMENT))  # gzip applied first, then deflate
    assert decode(body, "gzip, deflate") == DOCUMENT


@pytest.mark.parametrize(
    "body",
    [b"", b"\x1f", b"x", b"<urlset/>", b"\x8b\x1f plain"],
    ids=["empty", "half_magic", "one_byte", "short_xml", "reversed_magic"],
)
def test_short_or_plain_bodies_pass_through(body: bytes) -> None:
    decoder = BodyDecoder()
    assert b"".join(pieces_of(decoder, [body])) == body
    assert not decoder.compressed


def test_multi_member_gzip_is_the_concatenation() -> None:
    body = gzipped(DOCUMENT) + gzipped(b"<!-- second member -->") + gzipped(b"")
    assert decode(body) == DOCUMENT + b"<!-- second member -->"


@pytest.mark.parametrize("padding", [1, 7, 512])
def test_trailing_zero_padding_is_accepted(padding: int) -> None:
    assert decode(gzipped(DOCUMENT) + bytes(padding)) == DOCUMENT
    assert decode(gzipped(DOCUMENT) + bytes(padding), "gzip") == DOCUMENT


@pytest.mark.parametrize("junk", [b"junk", b"\0\0x", b"\x1fX", b"<urlset/>"])
@pytest.mark.parametrize("content_encoding", [None, "gzip"])
def test_trailing_junk_raises(junk: bytes, content_encoding: str | None) -> None:
    with pytest.raises(CompressionError):
        decode(gzipped(DOCUMENT) + junk, content_encoding)


def test_corrupt_gzip_raises() -> None:
    body = bytearray(gzipped(DOCUMENT))
    body[20:40] = b"\xff" * 20
    with pytest.raises(CompressionError):
        decode(bytes(body))


def test_bad_gzip_header_raises() -> None:
    with pytest.raises(CompressionError):
        decode(b"\x1f\x8b\x09\x00" + bytes(20))  # compression method 9 does not exist


@pytest.mark.parametrize("cut", [3, 10, 100, 6])
@pytest.mark.parametrize("content_encoding", [None, "gzip"])
def test_truncated_gzip_raises_on_close(cut: int, content_encoding: str | None) -> None:
    body = gzipped(DOCUMENT)[:-cut]
    decoder = BodyDecoder(content_encoding)
    out = b"".join(decoder.feed(body))  # what arrived decodes without complaint
    assert DOCUMENT.startswith(out)
    with pytest.raises(CompressionError):
        list(decoder.close())


def test_transport_gzip_without_body_is_truncated() -> None:
    decoder = BodyDecoder("gzip")
    assert list(decoder.feed(b"")) == []
    with pytest.raises(CompressionError):
        list(decoder.close())


def test_half_magic_after_a_member_is_truncated() -> None:
    decoder = BodyDecoder()
    assert b"".join(decoder.feed(gzipped(DOCUMENT) + b"\x1f")) == DOCUMENT
    with pytest.raises(CompressionError):
        list(decoder.close())


@pytest.mark.parametrize("content_encoding", ["br", "zstd", "compress", "gzip, br"])
def test_unsupported_content_encoding_raises(content_encoding: str) -> None:
    with pytest.raises(CompressionError):
        BodyDecoder(content_encoding)


# --- chunking -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "content_encoding"),
    [
        (DOCUMENT[:2000], None),
        (gzipped(DOCUMENT), None),
        (gzipped(DOCUMENT), "gzip"),
        (gzipped(gzipped(DOCUMENT)), "gzip"),
        (gzipped(DOCUMENT[:500]) + gzipped(DOCUMENT[500:900]), None),
        (gzipped(DOCUMENT) + bytes(5), None),
    ],
    ids=["plain", "gzip_file", "transport", "both", "multi_member", "padding"],
)
def test_byte_by_byte_equals_whole(body: bytes, content_encoding: str | None) -> None:
    whole = b"".join(pieces_of(BodyDecoder(content_encoding), [body]))
    single = b"".join(pieces_of(BodyDecoder(content_encoding), byte_by_byte(body)))
    assert single == whole
    assert whole.startswith(DOCUMENT[:500])


@pytest.mark.parametrize("junk", [b"junk", b"\0\0x"])
def test_byte_by_byte_junk_still_raises(junk: bytes) -> None:
    with pytest.raises(CompressionError):
        pieces_of(BodyDecoder(), byte_by_byte(gzipped(DOCUMENT[:300]) + junk))


# --- bounded, lazy output -------------------------------------------------------------------------


@pytest.mark.parametrize("content_encoding", [None, "gzip"])
def test_gzip_pieces_never_exceed_the_chunk_size(content_encoding: str | None) -> None:
    document = DOCUMENT * 40  # about 2 MB, compresses well: many full pieces
    body = gzipped(document)
    if content_encoding == "gzip":
        body = gzipped(body)
    pieces = pieces_of(BodyDecoder(content_encoding), [body])
    assert b"".join(pieces) == document
    assert len(pieces) > 1
    assert max(len(piece) for piece in pieces) <= OUTPUT_CHUNK_BYTES


def test_plain_pieces_never_exceed_the_chunk_size() -> None:
    document = DOCUMENT * 40
    pieces = pieces_of(BodyDecoder(), [document])
    assert b"".join(pieces) == document
    assert max(len(piece) for piece in pieces) <= OUTPUT_CHUNK_BYTES


@pytest.mark.slow
@pytest.mark.parametrize("transport", [False, True], ids=["gzip_file", "transport_over_file"])
def test_gzip_bomb_is_decoded_lazily(bomb: bytes, transport: bool) -> None:
    body = gzipped(bomb) if transport else bomb
    decoder = BodyDecoder("gzip" if transport else None)
    taken = 0
    pieces = 0
    tracemalloc.start()
    try:
        for piece in decoder.feed(body):
            assert len(piece) <= OUTPUT_CHUNK_BYTES
            taken += len(piece)
            pieces += 1
            if taken >= LIMIT_BYTES:
                break
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert decoder.compressed
    # Only about the wanted output was made: no more than one extra piece.
    assert pieces <= -(-LIMIT_BYTES // OUTPUT_CHUNK_BYTES) + 1
    assert LIMIT_BYTES <= taken < LIMIT_BYTES + OUTPUT_CHUNK_BYTES
    # And it was never held at once: far below the 200 MiB the bomb expands to.
    assert peak < 16 * 1024 * 1024


# --- properties -----------------------------------------------------------------------------------


def split_at(data: bytes, points: list[int]) -> list[bytes]:
    cuts = sorted({point % (len(data) + 1) for point in points})
    return [data[start:end] for start, end in pairwise([0, *cuts, len(data)])]


def outcome(content_encoding: str | None, chunks: list[bytes]) -> bytes | None:
    """The decoded bytes, or None when the decoder refused the body; pieces checked on the way."""
    decoder = BodyDecoder(content_encoding)
    try:
        pieces = pieces_of(decoder, chunks)
    except CompressionError:
        return None
    assert all(len(piece) <= OUTPUT_CHUNK_BYTES for piece in pieces)
    return b"".join(pieces)


_CODINGS = st.sampled_from([None, "gzip", "deflate", "identity", "gzip, gzip"])
_POINTS = st.lists(st.integers(0, 10_000), max_size=8)


@given(
    data=st.binary(max_size=2_000),
    members=st.integers(1, 3),
    coding=st.sampled_from([None, "gzip"]),
    points=_POINTS,
)
def test_gzip_of_anything_gives_it_back_whatever_the_chunking(
    data: bytes, members: int, coding: str | None, points: list[int]
) -> None:
    body = b"".join(gzipped(data[i::members]) for i in range(members))
    expected = b"".join(data[i::members] for i in range(members))
    # Under a transport gzip, a document that starts with the magic bytes is a gzip file itself.
    assume(coding is None or not expected.startswith(GZIP_MAGIC))
    assert outcome(coding, split_at(body, points)) == expected


@given(data=st.binary(max_size=2_000), coding=st.sampled_from([None, "gzip"]), cut=st.integers(0))
def test_a_truncated_gzip_stream_is_refused(data: bytes, coding: str | None, cut: int) -> None:
    body = gzipped(data)
    short = body[: cut % len(body)]
    if coding is None and len(short) < 2:
        return  # one byte cannot be told from a plain document: it passes as one
    assert outcome(coding, [short]) is None
    assert outcome(coding, byte_by_byte(short)) is None


@given(
    body=st.binary(max_size=300)
    | st.tuples(st.binary(max_size=300), st.binary(max_size=20)).map(
        lambda pair: gzipped(pair[0])[: len(pair[0]) // 2 + 5] + pair[1]
    ),
    prefix=st.sampled_from([b"", GZIP_MAGIC, GZIP_MAGIC + b"\x08", zlib.compress(b"x")[:2]]),
    coding=_CODINGS,
    points=_POINTS,
)
def test_random_bodies_decode_or_are_refused_the_same_whatever_the_chunking(
    body: bytes, prefix: bytes, coding: str | None, points: list[int]
) -> None:
    data = prefix + body
    whole = outcome(coding, [data])
    assert outcome(coding, split_at(data, points)) == whole
    if coding in (None, "identity") and not data.startswith(GZIP_MAGIC):
        assert whole == data  # plain bodies pass through untouched
