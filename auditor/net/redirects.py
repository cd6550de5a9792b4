"""Redirect decisions, one hop at a time: `next_hop()` says where to go next, or what is wrong.

The caller owns the requests; this module only reads a status and a Location. Pure: no I/O.
"""

from __future__ import annotations

import itertools
from collections.abc import Container, Sequence
from dataclasses import dataclass
from urllib.parse import quote, urljoin, urlsplit, urlunsplit

from auditor.codes import Code
from auditor.models import Finding, Redirect, finding
from auditor.urls import DEFAULT_PORTS, URL_SAFE, HttpUrl, index_document_folder, parse_http_url

# RFC 9110 §15.4: the statuses that carry a Location to follow (300 and 304 do not).
REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
_LOCATION_SHOWN = 300  # characters of a bad Location kept in a finding


@dataclass(frozen=True, slots=True)
class Hop:
    """Follow the redirect to `url` (absolute, http or https); `key` is its normalised form."""

    url: str
    key: str


def _encode_location(location: str) -> str:
    """Percent-encode a Location's user info, path, query and fragment; IDNA-encode its host.

    RFC 5891 for the host. Raises ValueError (or UnicodeError, one) when it cannot be split or
    encoded.
    """
    parts = urlsplit(location)
    netloc = parts.netloc
    if not netloc.isascii():
        userinfo, at, hostport = netloc.rpartition("@")
        host, colon, port = hostport.partition(":")
        userinfo = quote(userinfo, safe=URL_SAFE)
        netloc = f"{userinfo}{at}{host.encode('idna').decode('ascii')}{colon}{port}"
    path, query, fragment = (
        quote(part, safe=URL_SAFE) for part in (parts.path, parts.query, parts.fragment)
    )
    return urlunsplit((parts.scheme, netloc, path, query, fragment))


def encoded_url(url: str) -> str:
    """An absolute URL percent-encoded as browsers send it (ValueError when it cannot be).

    For transports that take a URL as it is (libcurl refuses raw spaces; aiohttp encodes them).
    """
    return _encode_location(url)


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
        target = urljoin(url, _encode_location(location.strip()))
    except ValueError:
        return finding(Code.REDIRECT_BAD_LOCATION, url=url, location=shown)
    parsed = parse_http_url(target)
    if parsed is None:
        return finding(Code.REDIRECT_BAD_LOCATION, url=url, location=shown)
    if "#" in url and "#" not in target:  # RFC 9110 §10.2.2: the fragment is inherited
        target += url[url.index("#") :]
    if hops + 1 > max_redirects:
        return finding(Code.REDIRECT_TOO_MANY, url=url, max_redirects=max_redirects)
    if parsed.key in visited:
        return finding(Code.REDIRECT_LOOP, url=url, revisits=target)
    return Hop(target, parsed.key)


# RFC 9110 §15.4.2, RFC 9238 (308): the redirects that say "use the new URL from now on".
PERMANENT_STATUSES = frozenset({301, 308})


def chain_findings(loc: str, chain: Sequence[Redirect], final_url: str) -> list[Finding]:
    """What a followed redirect chain from `loc` to `final_url` tells.

    One finding says that the URL moved (docs/explanation/rules.md#redirects): redirect.other_host
    when it ends on another host, its detail carrying what redirect.permanent or .temporary
    would (the first status, the hops, whether every hop is permanent); else one of those two.
    See docs/reference/codes.md#redirect.
    """
    if not chain:
        return []
    hops = len(chain)
    permanent = all(hop.status in PERMANENT_STATUSES for hop in chain)
    first, last = parse_http_url(loc), parse_http_url(final_url)
    elsewhere = first is not None and last is not None and _place(first) != _place(last)
    if elsewhere and last is not None:
        moved = finding(
            Code.REDIRECT_OTHER_HOST,
            url=loc,
            to=final_url,
            host=last.host,
            status=chain[0].status,
            hops=hops,
            permanent=permanent,
        )
    else:
        kind = Code.REDIRECT_PERMANENT if permanent else Code.REDIRECT_TEMPORARY
        moved = finding(kind, url=loc, to=final_url, status=chain[0].status, hops=hops)
    found = [moved]
    if hops > 1:
        found.append(finding(Code.REDIRECT_CHAIN, url=loc, to=final_url, hops=hops))
    steps = [hop.url for hop in chain] + [final_url]
    for before, after in itertools.pairwise(steps):
        if before.startswith("https:") and after.startswith("http:"):
            found.append(finding(Code.REDIRECT_HTTPS_DOWNGRADE, url=loc, hop=before, to=after))
            break
    # Google treats a deep URL sent to the home page as a soft 404 (Search Central, "Soft 404
    # errors"; docs/explanation/rules.md#soft-404): the page is gone, and the sitemap says not.
    # The home page's own index document (/index.html) sent to / is the home page, canonicalised.
    deep = first is not None and not _is_home(first) and not _is_home_index(first)
    if deep and last is not None and _is_home(last):
        found.append(finding(Code.REDIRECT_TO_ROOT, url=loc, to=final_url))
    return found


# What redirect.other_host stands for since it is the one finding of a URL moved to another
# host: a report made before holds these codes beside it, for the same URL.
_FOLDED_INTO_OTHER_HOST = frozenset({Code.REDIRECT_PERMANENT.value, Code.REDIRECT_TEMPORARY.value})


def codes_as_reported_now(codes: set[str]) -> set[str]:
    """A URL's codes as this version reports them, from a report made by any version.

    A URL moved to another host was redirect.other_host and redirect.permanent (or .temporary)
    in reports made before its one finding: compared as is, the second would read as fixed.
    """
    if Code.REDIRECT_OTHER_HOST.value in codes and not codes.isdisjoint(_FOLDED_INTO_OTHER_HOST):
        return codes - _FOLDED_INTO_OTHER_HOST
    return codes


def _is_home(url: HttpUrl) -> bool:
    return url.path in ("", "/") and not url.query


def _is_home_index(url: HttpUrl) -> bool:
    """The home page's own index document (`/index.html`; auditor.urls.INDEX_DOCUMENTS)."""
    return index_document_folder(url) == "/"


def _place(url: HttpUrl) -> tuple[str, int | None]:
    """Host and explicit port; http -> https on the default ports is the same host."""
    default = url.port == DEFAULT_PORTS[url.scheme]
    return url.host, None if default else url.port
