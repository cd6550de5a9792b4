"""Redirect decisions, one hop at a time: `next_hop()` says where to go next, or what is wrong.

The caller owns the requests; this module only reads a status and a Location. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Container
from dataclasses import dataclass
from urllib.parse import quote, urljoin

from auditor.codes import Code
from auditor.models import Finding, finding
from auditor.urls import parse_http_url

# RFC 9110 §15.4: the statuses that carry a Location to follow (300 and 304 do not).
REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
# RFC 3986 §2.2 reserved characters, plus '%' so existing escapes are kept as they are.
_LOCATION_SAFE = "!#$%&'()*+,/:;=?@[]~"
_LOCATION_SHOWN = 300  # characters of a bad Location kept in a finding


@dataclass(frozen=True, slots=True)
class Hop:
    """Follow the redirect to `url` (absolute, http or https); `key` is its normalised form."""

    url: str
    key: str


def is_redirect(status: int) -> bool:
    """Whether this status asks the client to follow a Location."""
    return status in REDIRECT_STATUSES


def next_hop(
    url: str,
    location: str | None,
    *,
    visited: Container[str],
    hops: int,
    max_redirects: int,
) -> Hop | Finding:
    """Decide the hop after `url` answered a redirect with `location`.

    `visited` holds the normalised URLs of the chain so far; `hops` counts the redirects already
    followed. RFC 9110 §10.2.2: Location may be relative, resolved against the request URL.
    """
    if not location or not location.strip():
        return finding(Code.REDIRECT_BAD_LOCATION, "Redirect without a Location", url=url)
    shown = location[:_LOCATION_SHOWN]
    try:
        # Servers send raw spaces and non-ASCII; percent-encode them as browsers do.
        target = urljoin(url, quote(location.strip(), safe=_LOCATION_SAFE))
    except ValueError:
        return finding(Code.REDIRECT_BAD_LOCATION, url=url, location=shown)
    parsed = parse_http_url(target)
    if parsed is None:
        return finding(Code.REDIRECT_BAD_LOCATION, url=url, location=shown)
    if hops + 1 > max_redirects:
        return finding(Code.REDIRECT_TOO_MANY, url=url, max_redirects=max_redirects)
    if parsed.key in visited:
        return finding(Code.REDIRECT_LOOP, url=url, revisits=target)
    return Hop(target, parsed.key)
