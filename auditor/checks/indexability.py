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
    # Google treats an instant meta refresh as a permanent redirect (Search Central,
    # "Redirects and Google Search").
    Code.REDIRECT_META_REFRESH: NotIndexable.REDIRECTED,
    # A page whose title says it was not found is a soft 404 (Search Central, "Soft 404 errors").
    Code.URL_TITLE_NOT_FOUND: NotIndexable.SOFT_404,
    # Refused to us, maybe not to Google: the page was not seen (auditor.checks.answer_rules).
    Code.HTTP_BLOCKED: NotIndexable.REFUSED,
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
    - refused to us (http.blocked: a bot shield's page, or 429 after retries): REFUSED;
    - where the redirects ended, 4xx or 5xx (a redirect to a 404 is a broken page first);
    - the listed URL redirects (an instant meta refresh too), or answered a 3xx with nothing
      to follow: REDIRECTED;
    - robots.txt disallows it, or the URL it leads to (Search Central, "Introduction to
      robots.txt": a blocked page cannot be crawled, so its content cannot be indexed);
    - noindex (or a past unavailable_after), in X-Robots-Tag or in the page's robots meta
      (Search Central, "Block Search indexing with noindex"), the header first;
    - its canonical names another URL (Search Central, "How to specify a canonical URL");
    - its title says the page was not found: a soft 404.
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
    # A past unavailable_after drops the page from Google's results as noindex does (Search
    # Central, "Robots meta tag, data-nosnippet, and X-Robots-Tag specifications").
    if code is Code.URL_NOINDEX or code is Code.URL_UNAVAILABLE_AFTER:
        source = item.detail.get("source") if item.detail else None
        return NotIndexable.NOINDEX_HEADER if source == "header" else NotIndexable.NOINDEX_META
    return _BY_CODE.get(code)


_PRECEDENCE = {reason: rank for rank, reason in enumerate(NotIndexable)}
