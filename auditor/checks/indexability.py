"""The indexability verdict of a checked URL: indexable, or the one reason it is not.

A sitemap should list only URLs a search engine can index: answering 200, not redirected, not
blocked, not noindex, canonical (Google Search Central, "Build and submit a sitemap": "URLs
that you want to see in Google's search results"; Screaming Frog's "Indexability Status";
Sitebulb: "200 (OK), indexable, canonical and unique"). The reasons and their precedence are in
docs/explanation/rules.md#indexability; the order of `NotIndexable`'s members is that
precedence. Pure: no I/O.
"""

from __future__ import annotations

from auditor.codes import Code
from auditor.models import CheckResult, Finding, NotIndexable

# What a finding says of indexability, where its code alone says it.
_BY_CODE = {
    Code.URL_BLOCKED_BY_ROBOTS: NotIndexable.BLOCKED_BY_ROBOTS,
    Code.URL_CANONICAL_ELSEWHERE: NotIndexable.CANONICALISED,
    # The answer, or its body, never came whole: nothing a search engine could index.
    Code.NET_TIMEOUT: NotIndexable.NO_RESPONSE,
    Code.NET_DNS: NotIndexable.NO_RESPONSE,
    Code.NET_CONNECT: NotIndexable.NO_RESPONSE,
    Code.NET_TLS: NotIndexable.NO_RESPONSE,
    Code.NET_PROTOCOL: NotIndexable.NO_RESPONSE,
    Code.NET_BLOCKED_ADDRESS: NotIndexable.NO_RESPONSE,
    Code.INTERNAL_ERROR: NotIndexable.NO_RESPONSE,
}


def not_indexable(check: CheckResult) -> NotIndexable | None:
    """Why the checked URL cannot be indexed (the first reason by precedence); None: it can.

    - no answer, or no whole answer, where the redirects ended (a network error, a refused
      address): NO_RESPONSE;
    - a bot shield's page instead of the page (http.blocked with a challenge): BOT_CHALLENGE;
    - where the redirects ended, 4xx or 5xx (a redirect to a 404 is a broken page first);
    - the listed URL redirects, or answered a 3xx with nothing to follow: REDIRECTED;
    - robots.txt disallows it, or the URL it leads to (Search Central, "Introduction to
      robots.txt": a blocked page cannot be crawled, so its content cannot be indexed);
    - noindex, in X-Robots-Tag or in the page's robots meta (Search Central, "Block Search
      indexing with noindex"), the header first;
    - its canonical names another URL (Search Central, "How to specify a canonical URL").
    """
    reasons = [reason for item in check.findings if (reason := _reason_of(item)) is not None]
    final = check.final_status if check.final_status is not None else check.status
    if final is None or not 200 <= final < 600:
        # No final answer: a chain that broke off (a loop, too many hops) redirected.
        redirected = check.redirects or (check.status is not None and 300 <= check.status < 400)
        reasons.append(NotIndexable.REDIRECTED if redirected else NotIndexable.NO_RESPONSE)
    elif final >= 400:
        reasons.append(NotIndexable.CLIENT_ERROR if final < 500 else NotIndexable.SERVER_ERROR)
    elif final >= 300 or check.redirects:
        reasons.append(NotIndexable.REDIRECTED)
    return min(reasons, key=_PRECEDENCE.__getitem__) if reasons else None


def _reason_of(item: Finding) -> NotIndexable | None:
    code = item.code
    if code is Code.URL_NOINDEX:
        source = item.detail.get("source") if item.detail else None
        return NotIndexable.NOINDEX_HEADER if source == "header" else NotIndexable.NOINDEX_META
    if code is Code.HTTP_BLOCKED and item.detail and item.detail.get("challenge"):
        return NotIndexable.BOT_CHALLENGE
    return _BY_CODE.get(code)


_PRECEDENCE = {reason: rank for rank, reason in enumerate(NotIndexable)}
