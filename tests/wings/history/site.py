"""A loopback site whose pages change between "nights", seen through a history of its URLs.

Every page has a status, maybe a noindex, a lastmod its sitemap gives, and (when asked for) an
ETag it honours: a request whose If-None-Match names the page's current ETag is answered 304
(RFC 9110 §13.1.2). The site counts the requests each page gets.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from aiohttp import web

from auditor.clock import FixedClock
from auditor.demo.documents import url, urlset
from auditor.demo.server import Route
from tests.helpers import NOW, Audited, run_audit


@dataclass
class Page:
    """How one page answers tonight."""

    status: int = 200
    noindex: bool = False
    lastmod: str | None = "2026-01-01"
    version: int = 1  # its ETag's; a change makes another
    delay_s: float = 0.0


@dataclass
class HistorySite:
    """`count` pages /p0 ... listed in one sitemap; `etags`: each page sends an ETag."""

    count: int
    etags: bool = False
    pages: dict[str, Page] = field(init=False)
    requests: Counter[str] = field(default_factory=Counter)  # page requests, by path
    answered_304: Counter[str] = field(default_factory=Counter)

    def __post_init__(self) -> None:
        self.pages = {f"/p{n}": Page() for n in range(self.count)}

    def change(self, *paths: str, lastmod: str | None = None, **how: Any) -> None:
        """Pages that answer otherwise from tonight; `lastmod`: their sitemap says so too."""
        for path in paths:
            page = self.pages[path]
            for name, value in how.items():
                setattr(page, name, value)
            page.version += 1
            if lastmod is not None:
                page.lastmod = lastmod

    def routes(self, base: str) -> dict[str, Route]:
        async def sitemap(_request: web.Request) -> web.StreamResponse:
            entries = [url(base + path, lastmod=page.lastmod) for path, page in self.pages.items()]
            return web.Response(text=urlset(entries), content_type="application/xml")

        async def page(request: web.Request) -> web.StreamResponse:
            state = self.pages[request.path]
            self.requests[request.path] += 1
            headers = {"Content-Type": "text/html"}
            if self.etags:
                headers["ETag"] = f'"v{state.version}"'
                if request.headers.get("If-None-Match") == headers["ETag"]:
                    self.answered_304[request.path] += 1
                    return web.Response(status=304, headers=headers)
            if state.delay_s:
                await asyncio.sleep(state.delay_s)
            meta = '<meta name="robots" content="noindex">' if state.noindex else ""
            text = f"<!doctype html><html><head><title>p</title>{meta}</head><body>x</body></html>"
            return web.Response(status=state.status, text=text, headers=headers)

        routes: dict[str, Route] = {"/sitemap.xml": sitemap}
        return routes | dict.fromkeys(self.pages, page)

    def take_requests(self) -> set[str]:
        """The pages requested since the last call."""
        asked = set(self.requests)
        self.requests.clear()
        return asked


def night(number: float) -> datetime:
    """The start of night `number` (night 0 is NOW)."""
    return NOW + timedelta(days=number)


async def audit_night(
    tmp_path: Path, base: str, number: float, *, history: Path | None, **options: Any
) -> Audited:
    """One night's audit of the site at `base`, its clock at `night(number)`."""
    folder = tmp_path / f"night{number}"
    return await run_audit(
        folder,
        f"{base}/sitemap.xml",
        clock=FixedClock(night(number)),
        no_check=False,
        history=history,
        json=folder / "report.json",
        **options,
    )


def entries(audited: Audited) -> dict[str, dict[str, Any]]:
    """The report's URL entries by path."""
    return {"/" + entry["loc"].split("/", 3)[3]: entry for entry in audited.report["urls"]}
