"""Bounded, incremental decompression of a response body into the document's bytes.

Two layers: the transport's Content-Encoding, then a gzip *file* layer recognised by its magic bytes
whatever the name or Content-Type says (docs/explanation/rules.md#gzip: servers send gzip under
.xml, plain XML under .gz, or both layers at once). Output comes in pieces of at most
OUTPUT_CHUNK_BYTES, made lazily, so a caller that stops reading at its size cap stops the work too
(gzip bombs). Pure: no I/O.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterator
from typing import Protocol

from auditor.errors import CompressionError

GZIP_MAGIC = b"\x1f\x8b"
OUTPUT_CHUNK_BYTES = 64 * 1024
_GZIP_WBITS = 16 + zlib.MAX_WBITS
_ZLIB_OR_GZIP_WBITS = 32 + zlib.MAX_WBITS  # "deflate" is zlib-wrapped (RFC 9110 §8.4.1.2)
# bgzip-style files hold one member per 64 KiB (about 800 in 50 MiB); endless empty members are
# an attack on CPU, not a sitemap.
MAX_GZIP_MEMBERS = 10_000


class _Layer(Protocol):
    def feed(self, data: bytes) -> Iterator[bytes]: ...
    def finish(self) -> Iterator[bytes]: ...


class _Inflater:
    """One zlib stream with bounded output per step; gzip may hold several members (RFC 1952)."""

    def __init__(self, wbits: int) -> None:
        self._wbits = wbits
        self._z = zlib.decompressobj(wbits)
        self._members = 1
        self._tail = b""  # bytes after a finished member, too few to tell what they are

    def feed(self, data: bytes) -> Iterator[bytes]:
        while True:
            if self._z.eof:
                data = self._tail + data
                self._tail = b""
                if not self._next_member(data):
                    return
            try:
                out = self._z.decompress(data, OUTPUT_CHUNK_BYTES)
            except zlib.error as exc:
                raise CompressionError(str(exc)) from exc
            data = self._z.unused_data if self._z.eof else self._z.unconsumed_tail
            if out:
                yield out
            if not data and len(out) < OUTPUT_CHUNK_BYTES:
                return  # input used up and no output left pending

    def _next_member(self, data: bytes) -> bool:
        """After a member ends: start the next one, or accept zero padding, or refuse junk."""
        if data.startswith(GZIP_MAGIC) and self._wbits == _GZIP_WBITS:
            self._members += 1
            if self._members > MAX_GZIP_MEMBERS:
                raise CompressionError(f"more than {MAX_GZIP_MEMBERS} gzip members")
            self._z = zlib.decompressobj(self._wbits)
            return True
        if data in (b"", GZIP_MAGIC[:1]):
            self._tail = data
            return False
        if data.strip(b"\0"):
            raise CompressionError("junk after the end of the compressed data")
        return False

    def finish(self) -> Iterator[bytes]:
        if not self._z.eof or self._tail:
            raise CompressionError("compressed data is truncated")
        yield from ()


class _Identity:
    def feed(self, data: bytes) -> Iterator[bytes]:
        for start in range(0, len(data), OUTPUT_CHUNK_BYTES):
            yield data[start : start + OUTPUT_CHUNK_BYTES]

    def finish(self) -> Iterator[bytes]:
        yield from ()


class _GzipFileSniffer:
    """Passes the stream through, or gunzips it when its first two bytes are the gzip magic."""

    def __init__(self) -> None:
        self._head = b""
        self._inner: _Layer | None = None

    @property
    def compressed(self) -> bool:
        return isinstance(self._inner, _Inflater)

    def feed(self, data: bytes) -> Iterator[bytes]:
        if self._inner is None:
            self._head += data
            if len(self._head) < len(GZIP_MAGIC):
                return
            gzip = self._head.startswith(GZIP_MAGIC)
            self._inner = _Inflater(_GZIP_WBITS) if gzip else _Identity()
            data, self._head = self._head, b""
        yield from self._inner.feed(data)

    def finish(self) -> Iterator[bytes]:
        if self._inner is None:
            yield from [self._head] if self._head else []
            return
        yield from self._inner.finish()


def _transport_layer(coding: str) -> _Layer:
    match coding:
        case "gzip" | "x-gzip":
            return _Inflater(_GZIP_WBITS)
        case "deflate":
            return _Inflater(_ZLIB_OR_GZIP_WBITS)
        case "identity" | "":
            return _Identity()
        case _:
            raise CompressionError(f"unsupported Content-Encoding {coding!r}")


class BodyDecoder:
    """Response body in, document bytes out: `feed(chunk)` and `close()` yield bounded pieces."""

    def __init__(self, content_encoding: str | None = None) -> None:
        codings = [c.strip().lower() for c in (content_encoding or "").split(",")]
        # RFC 9110 §8.4: codings are listed in the order they were applied; undo the last first.
        self._file = _GzipFileSniffer()
        self._layers: list[_Layer] = [*map(_transport_layer, reversed(codings)), self._file]

    @property
    def compressed(self) -> bool:
        """True once the document itself turned out to be a gzip file."""
        return self._file.compressed

    def feed(self, data: bytes) -> Iterator[bytes]:
        """Decode one chunk of the body; the pieces come as the caller asks for them."""
        return _through(self._layers, data)

    def close(self) -> Iterator[bytes]:
        """End of body: flush every layer; raises CompressionError when a layer is truncated."""
        for index, layer in enumerate(self._layers):
            for piece in layer.finish():
                yield from _through(self._layers[index + 1 :], piece)


def _through(layers: list[_Layer], data: bytes) -> Iterator[bytes]:
    if not layers:
        yield data
        return
    for piece in layers[0].feed(data):
        yield from _through(layers[1:], piece)


def decoded_prefix(body: bytes, encoding: str | None, *, limit: int) -> tuple[bytes, bool]:
    """At most `limit` bytes of a page's body, undone of its Content-Encoding where possible.

    And whether more may follow. A broken encoding only hides a page's head from the checks:
    what was decoded before it stands.
    """
    more = len(body) >= limit
    if not encoding and body[:2] != b"\x1f\x8b":
        return body[:limit], more
    decoded = bytearray()
    try:
        for piece in BodyDecoder(encoding).feed(body):
            decoded += piece
            if len(decoded) >= limit:
                more = True
                break
    except CompressionError:
        pass  # a page, not a sitemap: a broken encoding only hides its head from us
    return bytes(decoded[:limit]), more
