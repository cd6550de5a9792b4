"""Incremental UTF-8 decoding that goes on past bad bytes (U+FFFD), counting them.

Also the 16- and 32-bit encodings a document's first bytes give away. Pure: no I/O.
"""

from __future__ import annotations

import codecs

_REPLACEMENT = "\ufffd".encode()
# XML 1.0 (Fifth Edition) Appendix F.1: a byte order mark, or the NUL bytes around the first
# character ('<' or the 'h' of a text sitemap) of an encoding of 16 or 32 bits without one.
WIDE_HEAD_BYTES = 4
_WIDE_MARKS = (
    (b"\x00\x00\xfe\xff", "UTF-32BE"),
    (b"\xff\xfe\x00\x00", "UTF-32LE"),  # before UTF-16LE's mark, which it starts with
    (b"\xfe\xff", "UTF-16BE"),
    (b"\xff\xfe", "UTF-16LE"),
)
_WIDE_NULS: dict[tuple[bool, ...], str] = {
    (True, True, True, False): "UTF-32BE",
    (False, True, True, True): "UTF-32LE",
    (True, False, True, False): "UTF-16BE",
    (False, True, False, True): "UTF-16LE",
}


def wide_encoding(head: bytes) -> str | None:
    """The UTF-16 or UTF-32 that a document's first WIDE_HEAD_BYTES bytes show, or None.

    A NUL byte is no character of an XML document nor of a URL: in the first four, it is the
    high or low bytes of a wider encoding, whatever the document declares.
    """
    for mark, encoding in _WIDE_MARKS:
        if head.startswith(mark):
            return encoding
    return _WIDE_NULS.get(tuple(byte == 0 for byte in head[:WIDE_HEAD_BYTES]))


class Utf8Decoder:
    """Incremental UTF-8 in linear time: invalid sequences become U+FFFD and are counted."""

    def __init__(self) -> None:
        self._pending = b""  # an incomplete sequence at the end of the last chunk
        self._offset = 0  # bytes decoded so far
        self.first_bad_offset: int | None = None
        self.invalid = 0  # invalid sequences (each replaced by one U+FFFD)

    def decode(self, data: bytes, *, final: bool) -> str:
        data = self._pending + data if self._pending else data
        if self.first_bad_offset is None:  # strict until the first error, to locate it
            try:
                text, used = codecs.utf_8_decode(data, "strict", final)
            except UnicodeDecodeError as exc:
                self.first_bad_offset = self._offset + exc.start
            else:
                return self._consumed(data, used, text)
        text, used = codecs.utf_8_decode(data, "replace", final)
        # Replacements made, less the U+FFFD the document really holds (EF BF BD).
        self.invalid += text.count("\ufffd") - data.count(_REPLACEMENT, 0, used)
        return self._consumed(data, used, text)

    def _consumed(self, data: bytes, used: int, text: str) -> str:
        self._offset += used
        self._pending = data[used:]
        return text
