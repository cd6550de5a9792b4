"""Open a document as the auditor reads them: `await opener.open(url)`, its body streamed.

The awaitable face of `auditor.net.fetch` (retries with backoff, redirects hop by hop, the
per-host gate), for sitemaps and robots.txt: one future per document, never per URL checked.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Mapping
from dataclasses import dataclass

from auditor.clock import Clock
from auditor.config import Method
from auditor.models import AlreadyRead, Finding, Redirect
from auditor.net.fetch import Fetch, FetchPolicy, HopCheck, Requests
from auditor.net.host_gate import HostGate
from auditor.net.remap import NO_REMAP, Remap
from auditor.net.transport import Response, Transport

__all__ = ["FetchPolicy", "HopCheck", "Opened", "Opener", "Refused"]


@dataclass(slots=True)
class Opened:
    """The final response of a redirect chain, body unread (close it)."""

    response: Response
    redirects: tuple[Redirect, ...]
    final_url: str
    method: Method  # of the final answer: HEAD or GET
    elapsed_s: float  # waiting for the answers used (not for retries, backoff or pacing)


@dataclass(frozen=True, slots=True)
class Refused:
    """The chain stopped: a redirect problem, or a hop the caller refused."""

    reason: Finding | AlreadyRead
    redirects: tuple[Redirect, ...]
    elapsed_s: float


class Opener:
    """Opens documents under one policy, with one clock, one source of jitter and one gate."""

    def __init__(
        self,
        transport: Transport,
        policy: FetchPolicy,
        *,
        clock: Clock,
        rng: random.Random,
        gate: HostGate,
        remap: Remap = NO_REMAP,
    ) -> None:
        """Open through `transport`, paced and limited by `gate`.

        `remap`: where each request goes (`--remap`), applied where a URL is handed to the
        transport; everything else (hosts' slots, redirects, findings) is of the URL as named.
        """
        self._requests = Requests(transport, policy, gate, clock, rng, remap)

    async def open(
        self,
        url: str,
        *,
        on_hop: HopCheck | None = None,
        method: Method = Method.GET,
        headers: Mapping[str, str] | None = None,
    ) -> Opened | Refused:
        """Follow redirects from `url`; raises FetchError when no answer comes.

        `headers` go with the request for `url` only: conditional ones are about that URL, not
        where it leads. The final answer's body is read as it comes.
        """
        done: asyncio.Future[Fetch[Response]] = asyncio.get_running_loop().create_future()

        def ended(fetch: Fetch[Response]) -> None:
            if done.cancelled():  # its caller went away: nobody reads the answer
                if fetch.reply is not None:
                    fetch.reply.close()
                return
            done.set_result(fetch)

        fetch: Fetch[Response] = Fetch(
            self._requests, url, ended, method=method, headers=headers, stream=True, on_hop=on_hop
        )
        fetch.start()
        await done
        if fetch.error is not None:
            raise fetch.error
        chain = fetch.chain
        if fetch.refused is not None:
            return Refused(fetch.refused, chain, fetch.elapsed_s)
        assert fetch.reply is not None
        return Opened(fetch.reply, chain, fetch.url, fetch.used, fetch.elapsed_s)
