"""Canonicals: the `Link` header's and the head's, judged against the URL the sitemap lists.

RFC 6596 (rel=canonical), RFC 8288 (Link header). Google (Search Central, "How to specify a
canonical URL"): a page names its preferred URL; several different ones are ignored
(docs/explanation/rules.md#canonical). Pure: no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from urllib.parse import urljoin

from auditor.codes import Code
from auditor.models import Finding, finding
from auditor.net.redirects import encoded_url
from auditor.urls import parse_http_url

# RFC 8288 §3: `<URI-Reference>; param; param`, several links separated by commas.
_LINK_VALUE = re.compile(r"<([^>]*)>\s*((?:;[^,<]*)*)")
_REL_PARAM = re.compile(r';\s*rel\s*=\s*(?:"([^"]*)"|([^\s;,"]+))', re.IGNORECASE)
_SHOWN_CHARS = 200


def header_canonicals(values: Iterable[str]) -> tuple[str, ...]:
    """The `rel="canonical"` targets of `Link` header values (RFC 8288; rel may list several)."""
    return tuple(
        target.strip()
        for value in values
        for target, params in _LINK_VALUE.findall(value)
        if any(is_canonical(rel[1] or rel[2]) for rel in _REL_PARAM.finditer(params))
    )


def is_canonical(rel: str) -> bool:
    """RFC 8288 §3.3: rel holds space-separated relation types, case-insensitive."""
    return "canonical" in rel.lower().split()


def comparable(url: str) -> str | None:
    """The form two URLs of one page share (None: not an http(s) URL).

    RFC 3987 §3.1 maps an IRI to a URI by percent-encoding its UTF-8 (`café` is `caf%C3%A9`, a
    space `%20`); RFC 3986 §6.2.2 then normalises case, escapes and dot segments.
    """
    try:
        encoded = encoded_url(url)
    except ValueError:
        encoded = url
    parsed = parse_http_url(encoded)
    return parsed.key if parsed is not None else None


def canonical_findings(
    final_url: str,
    *,
    url: str,
    header: tuple[str, ...],
    html: tuple[str, ...],
    base: str | None,
) -> list[Finding]:
    """url.canonical_elsewhere or url.canonical_conflict for the page `url` led to.

    Hrefs resolve against the page's <base> or its own URL (RFC 3986 §5). A canonical naming
    the page itself, or the URL the sitemap lists (whose redirect is then the fault, reported
    as such), is no finding. Google ignores canonicals that disagree: several distinct ones are
    a conflict, not a choice.
    """
    named = _named(final_url, header=header, html=html, base=base)
    if len(named) > 1:
        listed = " ".join(sorted(absolute for absolute, _ in named.values()))
        return [finding(Code.URL_CANONICAL_CONFLICT, url=url, canonicals=listed[:_SHOWN_CHARS])]
    elsewhere = _elsewhere(named, final_url=final_url, url=url)
    if elsewhere is None:
        return []
    absolute, where = elsewhere
    canonical = absolute[:_SHOWN_CHARS]
    return [finding(Code.URL_CANONICAL_ELSEWHERE, url=url, canonical=canonical, source=where)]


def canonical_target(
    final_url: str, *, url: str, header: tuple[str, ...], html: tuple[str, ...], base: str | None
) -> str | None:
    """The one canonical naming another URL than the page (None: none, or several)."""
    named = _named(final_url, header=header, html=html, base=base)
    if len(named) != 1:
        return None
    elsewhere = _elsewhere(named, final_url=final_url, url=url)
    return elsewhere[0] if elsewhere is not None else None


def _named(
    final_url: str, *, header: tuple[str, ...], html: tuple[str, ...], base: str | None
) -> dict[str, tuple[str, str]]:
    """Each distinct canonical, by its comparable form: (absolute URL, where it was named)."""
    named: dict[str, tuple[str, str]] = {}
    if not header and not html:  # most pages: nothing to compare
        return named
    html_base = urljoin(final_url, base) if base else final_url
    for source, hrefs, against in (("header", header, final_url), ("html", html, html_base)):
        for href in hrefs:
            absolute = urljoin(against, href)
            key = comparable(absolute)
            if key is not None:
                known = named.get(key)
                where = source if known is None or known[1] == source else "header+html"
                named[key] = (absolute, where)
    return named


def _elsewhere(
    named: dict[str, tuple[str, str]], *, final_url: str, url: str
) -> tuple[str, str] | None:
    if not named:  # most pages: no canonical, so no URL of the page to make comparable
        return None
    own = {comparable(final_url), comparable(url)}
    return next((value for key, value in named.items() if key not in own), None)
