"""The page a request names, keyed as the sitemaps' URLs are keyed. Pure: no I/O.

A log line names a path (`GET /shoes?page=2 HTTP/1.1`), and a host only when the format logs
one (a virtual host field, a JSON host, an absolute request target); it never says http or
https unless it logs the port. So a line's key is its host and its normalised path and query
(`www.example.com/shoes?page=2`), or the path and query alone for a log without hosts
(`/shoes?page=2`): the join looks a listed URL up by the same two keys (`listed_keys`). The
path and query are normalised as the sitemaps' URLs are (auditor.urls: RFC 3986 §6.2.2), so
`/caf%c3%a9` in a log is the listed `/caf%C3%A9`.
"""

from __future__ import annotations

import re

# hashlib's own blake2b, as auditor.urls imports it: digest64 inlined in page_key (a hot path).
from _blake2 import blake2b
from typing import NamedTuple

from auditor.limits import MAX_FIELD_CHARS
from auditor.urls import digest64, parse_http_url

# A request target that is already in normal form: no escape to normalise, no dot segment,
# no fragment, no character a URL may not hold raw, no empty query. Its key is itself.
_PLAIN_TARGET = re.compile(rb"/[A-Za-z0-9\-._~!$&'()*+,;=:@/?]*")
# A listed URL of the same kind, split by slicing (the same key as HttpUrl.key's).
_PLAIN_URL = re.compile(
    r"[Hh][Tt][Tt][Pp][Ss]?://([a-z0-9.\-]+)(?::[0-9]{1,5})?(/[A-Za-z0-9\-._~!$&'()*+,;=:@/?]*)?"
)
# What a page's last path segment may end with (no extension, or a page's): for the pages
# Googlebot fetched that no sitemap lists. Images, scripts, feeds and robots.txt are no pages.
_PAGE_ENDINGS = frozenset(
    {"", "html", "htm", "xhtml", "shtml", "php", "asp", "aspx", "jsp", "jspx", "cfm", "cgi", "pl"}
)


Target = tuple[int, bytes]  # a request's page: its key's digest, and the key (UTF-8)


def request_target(request: bytes) -> bytes | None:
    """The target of a request line (`GET /a HTTP/1.1` -> `/a`); None when there is none.

    HTTP/1.1 (RFC 9112 §3): method SP request-target SP HTTP-version; an HTTP/0.9 line has no
    version. `-` (nginx's for a request that never came) and junk have no target.
    """
    parts = request.split(b" ")
    if len(parts) not in (2, 3) or not parts[0].isalpha():
        return None
    return parts[1]


def page_key(request: bytes, host: str | None) -> Target | None:
    """The key of the page a request line names (`GET /a HTTP/1.1`), or None: none.

    `request_target` and `target_key` in one call: this runs once a verified hit.
    """
    parts = request.split(b" ")
    if len(parts) not in (2, 3) or not parts[0].isalpha():
        return None
    target = parts[1]
    plain = target[:1] == b"/" and target[-1:] != b"?" and b"/." not in target
    if plain and len(target) <= MAX_FIELD_CHARS and _PLAIN_TARGET.fullmatch(target):
        key = host.encode() + target if host else target
        return int.from_bytes(blake2b(key, digest_size=8).digest(), "little") or 1, key
    return target_key(target, host)


def target_key(target: bytes, host: str | None) -> Target | None:
    """The key of a request target on `host` (lower-case, no port), or None: names no page.

    The origin form (`/a?b`) on the line's host; the absolute form (`http://h/a`) names its
    own host (RFC 9112 §3.2.2). `*` and the authority form (CONNECT) name no page.
    """
    if len(target) > MAX_FIELD_CHARS:
        return None
    plain = target[:1] == b"/" and target[-1:] != b"?" and b"/." not in target
    if plain and _PLAIN_TARGET.fullmatch(target):
        key = host.encode() + target if host else target
        return digest64(key) or 1, key
    text = target.decode("utf-8", "replace")
    if text.startswith("/"):
        parsed = parse_http_url("http://host.invalid" + text)
    elif text[:7].lower() == "http://" or text[:8].lower() == "https://":
        parsed = parse_http_url(text)
        host = parsed.host if parsed is not None else None
    else:
        return None
    if parsed is None:
        return None
    normal = parsed.key
    path = normal[normal.index("/", normal.index("//") + 2) :] if normal.count("/") > 2 else "/"
    return _target(path, host)


def _target(path: str, host: str | None) -> Target:
    key = (f"{host}{path}" if host else path).encode()
    return digest64(key) or 1, key


def is_page(key: bytes) -> bool:
    """Whether a key's path looks like a page's (no extension, or a page's)."""
    segment = key.partition(b"?")[0].rpartition(b"/")[2].decode("utf-8", "replace")
    dot = segment.rfind(".")
    return (segment[dot + 1 :].lower() if dot >= 0 else "") in _PAGE_ENDINGS


def host_of(vhost: str) -> str | None:
    """A logged host (`www.example.com:443`, Apache's `%v:%p`), lower-case, without its port."""
    text = vhost.strip().lower()
    if text.startswith("["):  # an IPv6 literal, [::1]:443
        return text[1:].partition("]")[0] or None
    name, colon, number = text.rpartition(":")
    if colon and number.isdigit() and ":" not in name:
        text = name
    text = text.rstrip(".")
    return text if text and text != "-" else None


class ListedKeys(NamedTuple):
    """How a listed URL is looked up in the logs: by host and path, or by path alone."""

    host: str
    scheme: str
    with_host: int
    path: int


def listed_keys(loc: str) -> ListedKeys | None:
    """The keys of a listed URL (None: not an http(s) URL)."""
    plain = _PLAIN_URL.fullmatch(loc)
    if plain is not None and "/." not in loc and not loc.endswith("?"):
        host, path = plain.group(1).rstrip("."), plain.group(2) or "/"
        scheme = "https" if loc[4:5] in "sS" else "http"
    else:
        parsed = parse_http_url(loc)
        if parsed is None:
            return None
        host, key, scheme = parsed.host.rstrip("."), parsed.key, parsed.scheme
        path = key[key.index("/", key.index("//") + 2) :] if key.count("/") > 2 else "/"
    return ListedKeys(
        host, scheme, digest64(f"{host}{path}".encode()) or 1, digest64(path.encode()) or 1
    )
