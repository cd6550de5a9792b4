"""Conditional page checks: a page's last ETag and Last-Modified, sent back; a 304 understood.

The server is real (127.0.0.1) and answers as RFC 9110 §13.1 says: 304 when If-None-Match
names its current ETag, or when If-Modified-Since is not before its Last-Modified. Every test
once with each transport (tests/engines.py), the checker built as a checker process builds it.
"""

from __future__ import annotations

import random
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from typing import Any

import pytest
from aiohttp import web

from auditor.checks.engine import CheckEngine
from auditor.clock import SystemClock
from auditor.config import AuditConfig, Method, Target, TargetKind
from auditor.demo.server import Route, serve
from auditor.http_stack import check_engine, openers, run_transport
from auditor.models import Validators
from auditor.net.address_guard import Reach
from tests.engines import ENGINE

pytestmark = pytest.mark.usefixtures("engine")

MODIFIED = "Tue, 05 Nov 2024 10:00:00 GMT"
PAGE = "<!doctype html><html><head><title>p</title></head><body>x</body></html>"


@dataclass
class Conditional:
    """A page that honours conditional requests; what it was asked."""

    etag: str | None = '"v1"'
    modified: str | None = MODIFIED
    asked: list[dict[str, str]] = field(default_factory=list)

    async def answer(self, request: web.Request) -> web.StreamResponse:
        sent = {
            name: request.headers[name]
            for name in ("If-None-Match", "If-Modified-Since")
            if name in request.headers
        }
        self.asked.append(sent)
        headers = {"Content-Type": "text/html"}
        if self.etag is not None:
            headers["ETag"] = self.etag
        if self.modified is not None:
            headers["Last-Modified"] = self.modified
        if self._unchanged(sent):
            return web.Response(status=304, headers=headers)
        return web.Response(text=PAGE, headers=headers)

    def _unchanged(self, sent: dict[str, str]) -> bool:
        # RFC 9110 §13.2.2: If-None-Match first; If-Modified-Since only without it.
        if "If-None-Match" in sent:
            return self.etag is not None and sent["If-None-Match"] == self.etag
        since = sent.get("If-Modified-Since")
        if since is None or self.modified is None:
            return False
        return parsedate_to_datetime(self.modified) <= parsedate_to_datetime(since)


@asynccontextmanager
async def page_checker(
    routes: dict[str, Route], method: Method = Method.GET
) -> AsyncIterator[tuple[CheckEngine[Any], str]]:
    """A checker of the test's engine, and the root URL of a server of `routes`."""
    async with serve(lambda _base: routes) as served:
        config = AuditConfig(
            targets=(Target(served.base, TargetKind.SITE, served.base + "/"),),
            engine=ENGINE.get(),
            method=method,
            allow_private=True,
            timeout_s=2.0,
            retries=0,
        )
        async with run_transport(config, reach=Reach.ANY, spare=1) as transport:
            clock = SystemClock()
            parts = openers(config, transport, clock=clock, rng=random.Random(1))
            engine = check_engine(config, parts, clock=clock)
            yield engine, served.base
            await engine.aclose()


async def test_a_page_answered_304_is_not_modified_and_its_validators_went_with_it() -> None:
    page = Conditional()
    async with page_checker({"/p": page.answer}) as (check, base):
        first = await check.check(f"{base}/p", origin=base)
        second = await check.check(f"{base}/p", origin=base, validators=first.validators)
    assert (first.status, first.not_modified) == (200, False)
    assert first.validators == Validators('"v1"', MODIFIED)
    assert (second.status, second.not_modified, second.findings) == (304, True, ())
    assert page.asked == [{}, {"If-None-Match": '"v1"', "If-Modified-Since": MODIFIED}]


async def test_a_changed_page_answers_in_full_with_its_new_validator() -> None:
    page = Conditional()
    async with page_checker({"/p": page.answer}) as (check, base):
        first = await check.check(f"{base}/p", origin=base)
        page.etag = '"v2"'
        second = await check.check(f"{base}/p", origin=base, validators=first.validators)
    assert (second.status, second.not_modified, second.etag) == (200, False, '"v2"')


async def test_last_modified_alone_is_a_validator_too() -> None:
    page = Conditional(etag=None)
    async with page_checker({"/p": page.answer}) as (check, base):
        first = await check.check(f"{base}/p", origin=base)
        second = await check.check(f"{base}/p", origin=base, validators=first.validators)
    assert first.validators == Validators(None, MODIFIED)
    assert (second.status, second.not_modified) == (304, True)
    assert page.asked[1] == {"If-Modified-Since": MODIFIED}


@pytest.mark.parametrize("method", [Method.HEAD, Method.AUTO])
async def test_a_head_request_is_conditional_too(method: Method) -> None:
    page = Conditional()
    async with page_checker({"/p": page.answer}, method) as (check, base):
        first = await check.check(f"{base}/p", origin=base)
        second = await check.check(f"{base}/p", origin=base, validators=first.validators)
    assert (second.status, second.not_modified, second.method) == (304, True, "HEAD")


async def test_a_redirected_url_keeps_no_validator_of_where_it_leads() -> None:
    page = Conditional()

    async def moved(_request: web.Request) -> web.StreamResponse:
        raise web.HTTPMovedPermanently("/p")

    async with page_checker({"/p": page.answer, "/old": moved}) as (check, base):
        result = await check.check(f"{base}/old", origin=base)
    assert (result.status, result.final_status, result.validators) == (301, 200, None)


async def test_a_304_that_was_not_asked_for_stays_a_finding() -> None:
    """A server answering 304 to an unconditional request answered nothing usable."""

    async def stray(_request: web.Request) -> web.StreamResponse:
        return web.Response(status=304)

    async with page_checker({"/p": stray}) as (check, base):
        result = await check.check(f"{base}/p", origin=base)
    assert (result.status, result.not_modified) == (304, False)
    assert [item.code.value for item in result.findings] == ["redirect.bad_location"]


async def test_an_etag_too_long_to_send_back_is_not_kept() -> None:
    page = Conditional(etag='"' + "x" * 400 + '"', modified=None)
    async with page_checker({"/p": page.answer}) as (check, base):
        result = await check.check(f"{base}/p", origin=base)
    assert (result.status, result.validators) == (200, None)
