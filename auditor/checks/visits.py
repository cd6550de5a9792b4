"""One request per URL in a checking process, whatever role the URL plays in the run.

A listed URL may be another page's canonical too: the first check that wants it requests it,
and the others take what that check found. A check under way is waited for (single flight);
a canonical target's check is kept until the URL's own check takes it (a listed URL the
sitemaps give later); a verdict is remembered for the canonicals named later. What another
part of the run found (the crawl's pages: `known`) is asked before any request is made. A URL
is waited for only once its page has answered, never while its own canonical is judged, so
that pages naming each other never wait for each other. Bounded: MAX_KEPT checks and
MAX_VERDICTS verdicts at most; past those, the oldest are forgotten, and a URL asked for again
is requested again.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from auditor.codes import Code
from auditor.models import CheckResult, NotIndexable
from auditor.net.redirects import encoded_url
from auditor.urls import RAW_CHARACTER, parse_known

MAX_KEPT = 4_096  # canonical targets' checks waiting for their URL's own check
MAX_VERDICTS = 32_768  # verdicts of URLs checked, for the canonicals named later

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


@dataclass(frozen=True, slots=True)
class Visit:
    """One URL's check as requested, before where its canonical leads is judged."""

    result: CheckResult
    canonical: str | None  # the URL its canonical names, when another than the page
    verdict: Verdict | None  # None: not one a canonical may go by (a 304: the page unread)


@dataclass(slots=True)
class _Flight:
    future: asyncio.Future[Visit]
    owned: bool  # its URL's own check has it (else: a canonical target's, kept for that check)


class Visits:
    """The checks of one process by URL digest: made once, shared by every role."""

    def __init__(self) -> None:
        self._flights: dict[int, _Flight] = {}
        self._verdicts: dict[int, Verdict] = {}
        self.known: KnownVerdict | None = None

    async def own(self, digest: int, make: Callable[[], Awaitable[Visit]]) -> Visit:
        """The URL's own check: the one a canonical target's made or is making, else `make`'s."""
        flight = self._flights.get(digest)
        if flight is None:
            return await self._made(digest, make, owned=True)
        flight.owned = True  # taken: nobody needs it kept any more
        if flight.future.done():
            del self._flights[digest]
        return await asyncio.shield(flight.future)

    async def verdict(self, digest: int, url: str, make: Callable[[], Awaitable[Visit]]) -> Verdict:
        """A canonical target's verdict: known, under way, found by the crawl, or made now."""
        known = self._verdicts.get(digest)
        if known is not None:
            return known
        flight = self._flights.get(digest)
        if flight is not None:
            under_way = (await asyncio.shield(flight.future)).verdict
            if under_way is not None:
                return under_way
        if self.known is not None:
            found = await self.known(url)
            if found is not None:
                return found
        made = (await self._made(digest, make, owned=False)).verdict
        return made if made is not None else (None, None)

    async def _made(
        self, digest: int, make: Callable[[], Awaitable[Visit]], *, owned: bool
    ) -> Visit:
        if len(self._flights) >= MAX_KEPT:
            self._forget_kept()
        flight = self._flights[digest] = _Flight(asyncio.get_running_loop().create_future(), owned)
        try:
            visit = await make()
        except BaseException:
            if self._flights.get(digest) is flight:
                del self._flights[digest]
            flight.future.cancel()
            raise
        flight.future.set_result(visit)
        if flight.owned and self._flights.get(digest) is flight:
            del self._flights[digest]  # its own check made it, or took it: nobody else will
        if visit.verdict is not None:
            self._remember(digest, visit.verdict)
        return visit

    def _remember(self, digest: int, verdict: Verdict) -> None:
        verdicts = self._verdicts
        if len(verdicts) >= MAX_VERDICTS:
            del verdicts[next(iter(verdicts))]  # the oldest
        verdicts[digest] = verdict

    def _forget_kept(self) -> None:
        """Drop the oldest half of the targets' checks kept (never one under way)."""
        done = [digest for digest, flight in self._flights.items() if flight.future.done()]
        for digest in done[: max(1, len(done) // 2)]:
            del self._flights[digest]
