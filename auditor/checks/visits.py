"""What a URL's check says to the canonicals that name it: its key and its verdict. Pure.

auditor.checks.canonical_targets makes one request per URL with them, whatever role the URL
plays in the run (listed, a canonical target, a page the crawl read).
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable

from auditor.codes import Code
from auditor.models import CheckResult, NotIndexable
from auditor.net.redirects import encoded_url
from auditor.urls import RAW_CHARACTER, parse_known

# Why a URL is not indexable (None: it is), and its status.
Verdict = tuple[NotIndexable | None, int | None]
# What the rest of the run knows of a URL (its crawl), or None.
KnownVerdict = Callable[[str], Awaitable[Verdict | None]]


def url_key(url: str) -> int | None:
    """The digest a URL's checks go by: the normalised form of the URL as requested.

    Percent-encoded as the transports send it (RFC 3987 §3.1), then normalised (RFC 3986
    §6.2.2): one page written two ways is one URL. None for a URL that is not http(s).
    """
    if RAW_CHARACTER.search(url) is not None:  # most URLs have none: no copy made
        with contextlib.suppress(ValueError):
            url = encoded_url(url)
    known = parse_known(url)
    return known[1] if known is not None else None


def canonical_verdict(result: CheckResult) -> Verdict | None:
    """What a canonical naming the URL checked goes by. Pure.

    None for a 304: the page was not read.
    """
    if result.not_modified:
        return None
    if any(item.code is Code.INTERNAL_ERROR for item in result.findings):
        return None, None  # our failure, not the page's: no finding on the pages naming it
    return result.not_indexable, result.status
