"""The `--state` file's format: per sitemap URL, its validators and its stored body.

Pure: no I/O. A file not of this format is refused whole (StateFormatError); the caller then runs
as if there were no state, so a damaged state can only cost downloads, never a wrong report.

See docs/explanation/design.md#state.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import cast

import orjson

from auditor.errors import StateFormatError

STATE_FORMAT = "sitemap-audit-state"
# Changelog: 1, the first version.
STATE_VERSION = 1
# body_name()'s shape: a crafted state file must not name a path outside the state's folder.
_BODY_NAME = re.compile(r"[0-9a-f]{32}-[0-9a-f]{16}")
# RFC 9110 §5.5: a field value is visible characters, spaces and tabs; aiohttp bounds the
# headers it reads at 8,190 bytes, so a longer validator was never received.
_FIELD_VALUE = re.compile(r"[\t\x20-\x7e\x80-\xff]{1,8190}")
_TEXT_FIELDS = ("etag", "last_modified", "content_type", "content_encoding")


@dataclass(frozen=True, slots=True)
class StateEntry:
    """One sitemap's validators and the copy of the body they validate."""

    etag: str | None
    last_modified: str | None
    file: str  # in the state's folder; see body_name()
    bytes: int  # the copy's size: another size means a damaged copy, never to be replayed
    content_type: str | None  # a 304 need not repeat these: the copy's answer had them
    content_encoding: str | None  # the copy is the body as received (RFC 9110 §8.4)
    saved_at: str  # UTC ISO 8601

    def conditional_headers(self) -> dict[str, str]:
        """RFC 9110 §13.1.2, §13.1.3: ask for the body only if it changed since the copy."""
        headers = {}
        if self.etag is not None:
            headers["If-None-Match"] = self.etag
        if self.last_modified is not None:
            headers["If-Modified-Since"] = self.last_modified
        return headers


def body_name(url: str, token: str) -> str:
    """A stored body's file name: the URL's digest, then a token of 16 hex digits new each time.

    A new body gets a new name, so a crash between a body's rename and the state file's never
    leaves an old entry naming a newer body.
    """
    url_part = hashlib.sha256(url.encode("utf-8", "surrogatepass")).hexdigest()[:32]
    return f"{url_part}-{token}"


def is_body_name(name: str) -> bool:
    """Whether a file in the state's folder is a body this format names (others are left)."""
    return _BODY_NAME.fullmatch(name) is not None


def parse_state(data: bytes) -> dict[str, StateEntry]:
    """The entries of a state file, by sitemap URL; StateFormatError for anything else."""
    try:
        document = orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        raise StateFormatError(f"not JSON ({exc})") from None
    if not isinstance(document, dict) or document.get("format") != STATE_FORMAT:
        raise StateFormatError("not a sitemap-audit state file")
    if document.get("version") != STATE_VERSION:
        raise StateFormatError(f"version {document.get('version')!r}, not {STATE_VERSION}")
    sitemaps = document.get("sitemaps")
    if not isinstance(sitemaps, dict):
        raise StateFormatError("no sitemaps table")
    return {url: _entry(url, value) for url, value in sitemaps.items()}


def _entry(url: str, value: object) -> StateEntry:
    if not isinstance(value, dict):
        raise StateFormatError(f"entry {url!r} is not a table")
    texts = {name: value.get(name) for name in _TEXT_FIELDS}
    file, size, saved_at = value.get("file"), value.get("bytes"), value.get("saved_at")
    if any(text is not None and not isinstance(text, str) for text in texts.values()):
        raise StateFormatError(f"entry {url!r}: a header value is not a string")
    if not isinstance(file, str) or not isinstance(saved_at, str):
        raise StateFormatError(f"entry {url!r}: no file or saved_at")
    if isinstance(size, bool) or not isinstance(size, int):
        raise StateFormatError(f"entry {url!r}: bad size")
    entry = StateEntry(
        etag=cast("str | None", texts["etag"]),
        last_modified=cast("str | None", texts["last_modified"]),
        file=file,
        bytes=size,
        content_type=cast("str | None", texts["content_type"]),
        content_encoding=cast("str | None", texts["content_encoding"]),
        saved_at=saved_at,
    )
    problem = entry_problem(entry)
    if problem is not None:
        raise StateFormatError(f"entry {url!r}: {problem}")
    return entry


def entry_problem(entry: StateEntry) -> str | None:
    """What makes an entry unusable (checked on reading, and before keeping one), if anything."""
    if entry.etag is None and entry.last_modified is None:
        return "no validator"
    for name in _TEXT_FIELDS:
        text = getattr(entry, name)
        if text is not None and _FIELD_VALUE.fullmatch(text) is None:
            return f"bad {name}"
    if not is_body_name(entry.file):
        return "bad file name"
    if entry.bytes < 0:
        return "bad size"
    return None


def state_bytes(entries: Mapping[str, StateEntry]) -> bytes:
    """The state file for `entries`, sorted by URL (a stable file for the same state)."""
    sitemaps = {url: _entry_json(entries[url]) for url in sorted(entries)}
    document = {"format": STATE_FORMAT, "version": STATE_VERSION, "sitemaps": sitemaps}
    try:
        return orjson.dumps(document)
    except TypeError:  # a lone surrogate (an undecodable target URL): escaped by the stdlib
        return json.dumps(document, separators=(",", ":")).encode()


def _entry_json(entry: StateEntry) -> dict[str, object]:
    return {
        "etag": entry.etag,
        "last_modified": entry.last_modified,
        "file": entry.file,
        "bytes": entry.bytes,
        "content_type": entry.content_type,
        "content_encoding": entry.content_encoding,
        "saved_at": entry.saved_at,
    }
