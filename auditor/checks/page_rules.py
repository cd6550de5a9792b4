"""What a page that answered 2xx says against its listing: noindex, canonicals, and its head.

The judgements of one page, from its headers and what auditor.checks.page_head read of its
head: url.noindex, url.unavailable_after, canonicals (auditor.checks.canonical), an instant
meta refresh, a head cut short, a soft-404 title. Pure: no I/O; the audit's clock comes in as
`now`.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from urllib.parse import urljoin

from auditor.checks.canonical import canonical_findings, comparable, header_canonicals
from auditor.checks.page_head import PageHead
from auditor.checks.robots_rules import NO_RULES, header_robots
from auditor.codes import Code
from auditor.models import Finding, finding

_SHOWN_CHARS = 200
# What is read from a page's headers and head, which a page robots.txt blocks shows nobody:
# `page_findings`' codes, and where its canonical leads (auditor.checks.checker).
PAGE_CODES = frozenset(
    {Code.URL_NOINDEX, Code.URL_UNAVAILABLE_AFTER, Code.URL_CANONICAL_ELSEWHERE}
    | {Code.URL_CANONICAL_CONFLICT, Code.URL_CANONICAL_NOT_INDEXABLE, Code.REDIRECT_META_REFRESH}
    | {Code.URL_HEAD_CUT_SHORT, Code.URL_TITLE_NOT_FOUND}
)


def blocked_page(findings: Iterable[Finding]) -> bool:
    """Whether robots.txt blocks the checked page (or where it leads) to the robots agent."""
    return any(item.code is Code.URL_BLOCKED_BY_ROBOTS for item in findings)


def page_findings(
    loc: str,
    final_url: str,
    *,
    robots_tags: list[str],
    links: list[str],
    page: PageHead | None,
    agents: frozenset[str],
    now: datetime,
    blocked: bool = False,
) -> list[Finding]:
    """Everything a 2xx page says about its indexing (`page`: its head, when it was read).

    `blocked`: robots.txt disallows the page to `agents`, and then it says nothing. Google
    ("Block Search indexing with noindex"): "for the noindex rule to be effective, the page or
    resource must not be blocked by a robots.txt file"; a page Google does not crawl shows it
    no header and no head: no canonical, no refresh, no title
    (docs/explanation/rules.md#robots-blocked-page).
    """
    if blocked:
        return []
    header = header_robots(robots_tags, agents)
    robots = header | (page.robots if page is not None else NO_RULES)
    found = []
    # Which one said it, the header first (auditor.checks.indexability's reasons).
    if robots.noindex:
        source = "header" if header.noindex else "meta"
        found.append(finding(Code.URL_NOINDEX, url=loc, final_url=final_url, source=source))
    # A past unavailable_after: Google drops the page then, as for noindex
    # (docs/explanation/rules.md#unavailable-after).
    elif robots.expired(now):
        date = str(robots.unavailable_after)[:_SHOWN_CHARS]
        source = "header" if header.expired(now) else "meta"
        code = Code.URL_UNAVAILABLE_AFTER
        found.append(finding(code, url=loc, final_url=final_url, date=date, source=source))
    html, base = (page.canonicals, page.base) if page is not None else ((), None)
    named = header_canonicals(links)
    found += canonical_findings(final_url, url=loc, header=named, html=html, base=base)
    if page is not None:
        found += _head_findings(loc, final_url, page)
    return found


def refresh_target(loc: str, final_url: str, page: PageHead) -> str | None:
    """Where the page's instant meta refresh sends it, absolute (None: nowhere else).

    Google (Search Central, "Redirects and Google Search"): an instant meta refresh is a
    permanent redirect. One to the page itself (or to the URL listed) only reloads it
    (docs/explanation/rules.md#meta-refresh).
    """
    if page.refresh is None:
        return None
    target = urljoin(urljoin(final_url, page.base or ""), page.refresh)
    return None if comparable(target) in {comparable(final_url), comparable(loc)} else target


def _head_findings(loc: str, final_url: str, page: PageHead) -> list[Finding]:
    found = []
    target = refresh_target(loc, final_url, page)
    if target is not None:
        to = target[:_SHOWN_CHARS]
        found.append(finding(Code.REDIRECT_META_REFRESH, url=loc, to=to, delay=0))
    # Google ignores what follows an element that ends the head
    # (docs/explanation/rules.md#page-head).
    if page.cut_by is not None and page.hidden:
        hidden = " ".join(page.hidden)
        found.append(finding(Code.URL_HEAD_CUT_SHORT, url=loc, by=page.cut_by, hidden=hidden))
    if page.not_found_title is not None:  # a soft 404 (docs/explanation/rules.md#soft-404)
        title = page.not_found_title.strip()[:_SHOWN_CHARS]
        found.append(finding(Code.URL_TITLE_NOT_FOUND, url=loc, title=title))
    return found
