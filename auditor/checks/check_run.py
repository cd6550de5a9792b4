"""One listed URL checked, step by step in the loop: robots.txt, the request, its answer judged.

Each step is a callback of the engine's (auditor.checks.engine): the robots.txt of the URL's
host once known, the policy's final answer (auditor.net.fetch), the page read on where its head
did not end, the verdict of the canonical it names. The judgements are the pure rules of
`net.redirects`, `answer_rules` (statuses, shields), `page_head` and `page_rules` (noindex,
canonicals). A check that finds nothing to say about a 2xx page ends as a `Clean` tuple; any
other as a CheckResult.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from auditor.checks.answer_read import (
    MAX_BODY_PREFIX_BYTES,
    MAX_PAGE_BYTES,
    NOT_MODIFIED,
    bounded,
    conditional_headers,
    has_head,
    has_read,
    last_modified_of,
)
from auditor.checks.answer_rules import bot_challenge, slow_finding, status_findings
from auditor.checks.canonical import canonical_target, header_canonicals
from auditor.checks.indexability import not_indexable
from auditor.checks.page_head import NOTHING_SAID, PageHead, read_head
from auditor.checks.page_rules import blocked_page, page_findings
from auditor.codes import Code
from auditor.config import Method
from auditor.discovery.robots import RobotsTxt
from auditor.errors import FetchError
from auditor.models import CheckResult, Finding, NotIndexable, Validators, finding
from auditor.net.fetch import Fetch
from auditor.net.redirects import chain_findings
from auditor.net.transport import Answer
from auditor.sitemap.plain_urls import Clean
from auditor.urls import origin_of

if TYPE_CHECKING:
    from auditor.checks.engine import CheckEngine

log = logging.getLogger(__name__)
_ERROR_CHARS = 300
Outcome = CheckResult | Clean
Verdict = tuple[NotIndexable | None, int | None]  # a canonical's: why not indexable, status


@dataclass(frozen=True, slots=True)
class PageBody:
    """A 2xx page's body as `read_page` read it (Content-Encoding undone), for the crawl."""

    final_url: str  # where the redirects ended: relative links resolve against it
    body: bytes  # at most the bytes asked for
    content_type: str | None
    robots_tags: tuple[str, ...]  # X-Robots-Tag values (nofollow)
    link_headers: tuple[str, ...] = ()  # Link values (a canonical)
    head: PageHead | None = None  # what the checks read of its head (a canonical, a refresh)
    canonical: str | None = None  # where its one canonical leads, when not to the page itself


Then = Callable[["CheckRun", Outcome], None]


class CheckRun:
    """One URL's check: its steps' state, from its robots.txt to its outcome (`then`)."""

    __slots__ = (
        "_answer", "_body", "_fetch", "_found", "_robots", "canonical", "engine", "follow", "key",
        "loc", "origin", "page", "page_bytes", "then", "validators",
    )  # fmt: skip

    def __init__(
        self,
        engine: CheckEngine[Any],
        key: object,
        loc: str,
        origin: str,
        then: Then,
        *,
        validators: Validators | None = None,
        follow: bool = True,
        page_bytes: int | None = None,
    ) -> None:
        """`follow`: judge where the page's canonical leads too (not for that canonical itself).

        `validators`: the page's last ETag and Last-Modified, sent as If-None-Match and
        If-Modified-Since; a 304 then comes back `not_modified`, its page left unread.
        `page_bytes`: a GET whose body is read up to this and kept as `page` (the crawl).
        """
        self.engine = engine
        self.key = key
        self.loc = loc
        self.origin = origin
        self.then = then
        self.validators = validators
        self.follow = follow
        self.page_bytes = page_bytes
        self.page: PageBody | None = None
        self.canonical: str | None = None  # where the page's canonical leads, if elsewhere
        self._found: list[Finding] = []
        self._robots: RobotsTxt | None = None
        self._fetch: Fetch[Answer] | None = None
        self._answer: Answer | None = None
        self._body = b""

    def start(self) -> None:
        """Learn the robots.txt of the URL's host, then request it."""
        known = self.engine.known_robots
        origin = self.origin
        if origin in known:
            self._request(known[origin])
        else:
            self.engine.with_robots(origin, self._request, self._crashed)

    def _request(self, robots: RobotsTxt | None) -> None:
        try:
            engine = self.engine
            self._robots = robots
            if robots is not None and not robots.allows(self.loc, engine.agent):
                self._found = engine.blocked(self.loc, self.loc, robots)
            self._new_fetch().start()
        except Exception as exc:  # noqa: BLE001 - a bug: internal.error for this URL, logged
            self._crashed(exc)

    def _new_fetch(self) -> Fetch[Answer]:
        engine, page_bytes = self.engine, self.page_bytes
        method = engine.method if page_bytes is None else Method.GET
        fetch: Fetch[Answer] = Fetch(
            engine.requests,
            self.loc,
            self._opened,
            method=method,
            headers=conditional_headers(self.validators),
            max_body=MAX_BODY_PREFIX_BYTES if page_bytes is None else page_bytes,
            before_hop=self._before_hop,
        )
        self._fetch = fetch
        return fetch

    def take_over(self, host: str, used: Method, answer: Answer | FetchError) -> None:
        """Go on from the answer to a request sent for this check (auditor.checks.plain_lane).

        Its slot of `host` is held: the Fetch takes it over, as if it had sent the request.
        """
        try:
            self._new_fetch().take_over(host, used, answer)
        except Exception as exc:  # noqa: BLE001 - a bug: internal.error for this URL, logged
            self._crashed(exc)

    def _before_hop(self, url: str, resume: Callable[[], None]) -> None:
        self.engine.before_hop(url, resume, self._crashed)

    def _opened(self, fetch: Fetch[Answer]) -> None:
        try:
            self._judge_opened(fetch)
        except Exception as exc:  # noqa: BLE001 - a bug: internal.error for this URL, logged
            self._crashed(exc)

    def _judge_opened(self, fetch: Fetch[Answer]) -> None:
        found, loc = self._found, self.loc
        if fetch.error is not None:
            # The host answers nothing at all (docs/explanation/rules.md#robots-status).
            robots = self._robots
            if robots is not None and robots.silent:
                found = self._found = []
            found.append(fetch.error.finding(url=loc))
            self._end(CheckResult(None, findings=tuple(found)))
            return
        chain = fetch.chain
        if fetch.refused is not None:
            reason = fetch.refused
            assert isinstance(reason, Finding), "checks veto no hop"
            found.append(reason)
            status = chain[0].status if chain else None
            elapsed_ms = round(fetch.elapsed_s * 1000)
            result = CheckResult(status, redirects=chain, elapsed_ms=elapsed_ms)
            result.findings = tuple(found)
            self._end(result)
            return
        answer = fetch.reply
        assert answer is not None
        self._answer = answer
        if self.validators and not chain and answer.status == NOT_MODIFIED:
            self._end(self._not_modified(fetch))
            return
        # judged where it lands (docs/explanation/rules.md#robots-blocked); every host's
        # robots.txt on the way was learnt before its hop opened (auditor.net.fetch.BeforeHop)
        if not found and chain:
            found += self._blocked_on_the_way(fetch)
        self._answered(fetch, answer)

    def _blocked_on_the_way(self, fetch: Fetch[Answer]) -> list[Finding]:
        """A listed URL that redirects into a blocked path is blocked."""
        steps = [hop.url for hop in fetch.chain[1:]] + [fetch.url]
        engine = self.engine
        for url in steps:
            origin = origin_of(url)
            robots = engine.robots_now(origin) if origin is not None else None
            found = engine.blocked(self.loc, url, robots) if robots is not None else []
            if found:
                return found
        return []

    def _answered(self, fetch: Fetch[Answer], answer: Answer) -> None:
        """The final answer: its status, shields and page judged; a clean page ends here."""
        engine, status, found = self.engine, answer.status, self._found
        body = b""
        if fetch.used is Method.GET:
            error = answer.error
            if error is None:
                body = answer.body
            else:  # the answer came; its body broke off: what came of it is not judged
                found.append(finding(error.code, error.message, url=self.loc, status=status))
        self._body = body
        if (
            not found
            and not fetch.chain
            and 200 <= status < 300
            and fetch.elapsed_s <= engine.slow_s
            and answer.get("x-robots-tag") is None
            and answer.get("link") is None
            and self.page_bytes is None
            and bot_challenge(status, answer, b"") is None
        ):
            page = self._page_of(answer, body)
            if page is NOTHING_SAID:  # the common case: a page that says nothing of itself
                self._end(engine.clean(fetch, answer))
                return
            if page is None:  # its head is read on first
                return
        self._judge(fetch, answer, body)

    def _page_of(self, answer: Answer, body: bytes) -> PageHead | None:
        """What the page's head says (NOTHING_SAID when no head is read; None: read on)."""
        if not body or not has_head(answer.get("content-type")):
            return NOTHING_SAID
        head = body[:MAX_BODY_PREFIX_BYTES]
        cut = answer.more or len(body) > len(head)
        page = read_head(head, self.engine.agents, complete=not cut)
        if page.ended or not cut:
            return page
        if len(body) > len(head):
            return read_head(body[:MAX_PAGE_BYTES], self.engine.agents)  # Google reads no further
        assert self._fetch is not None
        self.engine.read_on(self, page, self._fetch.url)
        return None

    def head_read_on(self, page: PageHead) -> None:
        """The head of a page whose first bytes did not end it, read on (or as it was)."""
        try:
            fetch, answer = self._fetch, self._answer
            assert fetch is not None
            assert answer is not None
            self._judge(fetch, answer, self._body, page=page)
        except Exception as exc:  # noqa: BLE001 - a bug: internal.error for this URL, logged
            self._crashed(exc)

    def _judge(
        self, fetch: Fetch[Answer], answer: Answer, body: bytes, *, page: PageHead | None = None
    ) -> None:
        """Every rule of a final answer; a canonical elsewhere is itself checked (follow)."""
        engine, loc, found = self.engine, self.loc, self._found
        status, final_url = answer.status, fetch.url
        head = body[:MAX_BODY_PREFIX_BYTES]
        challenge = bot_challenge(status, answer, head)
        page_said = 200 <= status < 300 and challenge is None
        if page_said and page is None:
            page = self._page_of(answer, body)
            if page is None:
                return  # read on first: judged once its head is known (`head_read_on`)
        found += chain_findings(loc, fetch.chain, final_url)
        found += status_findings(status, url=loc, challenge=challenge)
        target = None
        if page_said:
            robots_tags, links = answer.values("x-robots-tag"), answer.values("link")
            read = None if page is NOTHING_SAID and not has_read(answer, body) else page
            said = page_findings(
                loc,
                final_url,
                robots_tags=robots_tags,
                links=links,
                page=read,
                agents=engine.agents,
                now=engine.clock.now(),
                blocked=blocked_page(found),
            )
            found += said
            if any(item.code is Code.URL_CANONICAL_ELSEWHERE for item in said):
                html, base = (read.canonicals, read.base) if read is not None else ((), None)
                header = header_canonicals(links)
                target = canonical_target(final_url, url=loc, header=header, html=html, base=base)
            if self.page_bytes is not None:
                content_type = answer.get("content-type")
                self.page = PageBody(
                    final_url, body, content_type, tuple(robots_tags), tuple(links), read, target
                )
        slow = slow_finding(fetch.elapsed_s, url=loc, slow_s=engine.slow_s)
        if slow is not None:
            found.append(slow)
        self.canonical = target
        if target is not None and self.follow:
            if self.key is not None:  # its own verdict first: pages naming each other never wait
                own = self._result(fetch, answer)
                own.not_indexable = not_indexable(own)
                engine.judged(self.key, own)
            engine.canonical_verdict(target, self._canonical_known)
            return
        self._end(self._result(fetch, answer))

    def _canonical_known(
        self, target: str, verdict: tuple[NotIndexable | None, int | None]
    ) -> None:
        """url.canonical_not_indexable: the canonical the page names is itself not indexable.

        Screaming Frog's "Non-Indexable Canonical": Google is pointed at a URL it will not
        index (docs/explanation/rules.md#canonical-target).
        """
        try:
            reason, status = verdict
            if reason is not None:
                code, canonical, why = Code.URL_CANONICAL_NOT_INDEXABLE, target[:200], reason.value
                said = finding(code, url=self.loc, canonical=canonical, reason=why, status=status)
                self._found.append(said)
            fetch, answer = self._fetch, self._answer
            assert fetch is not None
            assert answer is not None
            self._end(self._result(fetch, answer))
        except Exception as exc:  # noqa: BLE001 - a bug: internal.error for this URL, logged
            self._crashed(exc)

    def _result(self, fetch: Fetch[Answer], answer: Answer) -> CheckResult:
        chain, status = fetch.chain, answer.status
        direct = not chain and 200 <= status < 300
        return CheckResult(
            chain[0].status if chain else status,
            final_url=fetch.url,
            final_status=status,
            redirects=chain,
            elapsed_ms=round(fetch.elapsed_s * 1000),
            method=fetch.used.value.upper(),
            findings=tuple(self._found),
            last_modified=last_modified_of(answer),
            etag=bounded(answer.get("etag")) if direct else None,
        )

    def _not_modified(self, fetch: Fetch[Answer]) -> CheckResult:
        """A 304 to a conditional request (RFC 9110 §15.4.5): the page did not change.

        Nothing of the page is read or judged; the history keeps its last verdict. Only what
        this run judges before asking (robots.txt) and the time it took are this check's own.
        """
        result = CheckResult(
            NOT_MODIFIED,
            final_url=fetch.url,
            final_status=NOT_MODIFIED,
            elapsed_ms=round(fetch.elapsed_s * 1000),
            method=fetch.used.value.upper(),
            findings=tuple(self._found),
        )
        result.not_modified = True
        return result

    def _crashed(self, exc: Exception) -> None:
        """A bug: report where, and go on (docs/explanation/design.md#findings)."""
        log.error("internal error while checking %s", self.loc, exc_info=exc)
        text = f"{type(exc).__name__}: {exc}"[:_ERROR_CHARS]
        found = (finding(Code.INTERNAL_ERROR, url=self.loc, error=text),)
        self.page = None
        self._end(CheckResult(None, findings=found))

    def _end(self, outcome: Outcome) -> None:
        if isinstance(outcome, CheckResult):
            outcome.not_indexable = not_indexable(outcome)
        then, self.then = self.then, _ended
        then(self, outcome)


def _ended(_run: CheckRun, _outcome: Outcome) -> None:
    """A check ends once: a second end (a bug past its first) is dropped."""
