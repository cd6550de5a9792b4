"""The --state file's format: what it writes it reads back; anything else is refused whole."""

from __future__ import annotations

import json

import pytest

from auditor.errors import StateFormatError
from auditor.sitemap.state_file import (
    STATE_FORMAT,
    STATE_VERSION,
    StateEntry,
    body_name,
    entry_problem,
    is_body_name,
    parse_state,
    state_bytes,
)

URL = "https://example.com/sitemap.xml"


def entry(**changes: object) -> StateEntry:
    fields: dict[str, object] = {
        "etag": '"abc"',
        "last_modified": "Mon, 23 Nov 2026 10:00:00 GMT",
        "file": body_name(URL, "0123456789abcdef"),
        "bytes": 120,
        "content_type": "application/xml",
        "content_encoding": None,
        "saved_at": "2026-11-23T12:00:00Z",
    }
    fields.update(changes)
    return StateEntry(**fields)  # type: ignore[arg-type]


def test_what_is_written_reads_back() -> None:
    entries = {URL: entry(), "https://example.com/b.xml.gz": entry(etag=None, bytes=0)}
    assert parse_state(state_bytes(entries)) == entries
    assert parse_state(state_bytes({})) == {}


def test_body_names_are_plain_file_names_one_per_url() -> None:
    names = {body_name(f"https://example.com/{n}.xml", "0123456789abcdef") for n in range(50)}
    assert len(names) == 50
    assert all(is_body_name(name) for name in names)
    assert not is_body_name("../" + next(iter(names)))


def test_conditional_headers_carry_the_validators_kept() -> None:
    assert entry().conditional_headers() == {
        "If-None-Match": '"abc"',
        "If-Modified-Since": "Mon, 23 Nov 2026 10:00:00 GMT",
    }
    assert entry(last_modified=None).conditional_headers() == {"If-None-Match": '"abc"'}
    assert entry(etag=None).conditional_headers() == {
        "If-Modified-Since": "Mon, 23 Nov 2026 10:00:00 GMT"
    }


@pytest.mark.parametrize(
    "changes",
    [
        {"etag": None, "last_modified": None},
        {"etag": '"a"\r\nX-Injected: 1'},
        {"etag": ""},
        {"content_type": "text/\x00xml"},
        {"file": "../../etc/passwd"},
        {"bytes": -1},
    ],
)
def test_unusable_entries_are_named(changes: dict[str, object]) -> None:
    assert entry_problem(entry(**changes)) is not None
    assert entry_problem(entry()) is None


def _document(**sitemap: object) -> bytes:
    good = json.loads(state_bytes({URL: entry()}))["sitemaps"][URL]
    return json.dumps(
        {"format": STATE_FORMAT, "version": STATE_VERSION, "sitemaps": {URL: good | sitemap}}
    ).encode()


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"not json",
        b"[1, 2]",
        b'{"format": "something else", "version": 1, "sitemaps": {}}',
        json.dumps({"format": STATE_FORMAT, "version": 99, "sitemaps": {}}).encode(),
        json.dumps({"format": STATE_FORMAT, "version": STATE_VERSION}).encode(),
        json.dumps({"format": STATE_FORMAT, "version": STATE_VERSION, "sitemaps": [1]}).encode(),
        _document(file="/etc/passwd"),
        _document(bytes="120"),
        _document(bytes=True),
        _document(etag=5),
        _document(saved_at=None),
        _document(etag=None, last_modified=None),
        _document(etag='"a"\nX: 1'),
    ],
)
def test_anything_else_is_refused_whole(data: bytes) -> None:
    with pytest.raises(StateFormatError):
        parse_state(data)
