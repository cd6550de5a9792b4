"""Incremental UTF-8 decoding that goes on past bad bytes (U+FFFD), counting them. Pure: no I/O."""

from __future__ import annotations

import codecs

_REPLACEMENT = "\ufffd".encode()


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
