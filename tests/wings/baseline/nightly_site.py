"""A loopback site whose pages change between "nights", for the comparison's end-to-end tests."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import defusedxml.ElementTree as SafeET
from aiohttp import web
from prometheus_client.parser import text_string_to_metric_families

from auditor.demo.documents import url, urlset
from auditor.demo.server import Route


@dataclass
class Page:
    """How one page answers tonight."""

    status: int = 200
    noindex: str | None = None  # "header" (X-Robots-Tag) or "meta"
    canonical: str | None = None  # a path of the site
    location: str | None = None  # a redirect's target path (status 301)


@dataclass
class NightlySite:
    """Pages, the sitemap's list and robots.txt's Disallow lines, all changeable."""

    paths: Iterable[str]
    pages: dict[str, Page] = field(init=False)
    listed: list[str] = field(init=False)
    disallow: list[str] = field(default_factory=list)
    base: str = ""

    def __post_init__(self) -> None:
        self.listed = list(self.paths)
        self.pages = {path: Page() for path in self.listed}

    def add(self, *paths: str, **how: Any) -> None:
        """New pages (answering as `how` says), not listed yet."""
        for path in paths:
            self.pages[path] = Page(**how)

    def routes(self, base: str) -> dict[str, Route]:
        self.base = base

        async def sitemap(_request: web.Request) -> web.StreamResponse:
            body = urlset([url(base + path) for path in self.listed])
            return web.Response(text=body, content_type="application/xml")

        async def robots(_request: web.Request) -> web.StreamResponse:
            rules = "".join(f"Disallow: {path}\n" for path in self.disallow)
            return web.Response(text=f"User-agent: *\n{rules}")

        async def page(request: web.Request) -> web.StreamResponse:
            state = self.pages[request.path]
            if state.location is not None:
                raise web.HTTPMovedPermanently(base + state.location)
            head, headers = "<title>page</title>", {"Content-Type": "text/html"}
            if state.noindex == "meta":
                head += '<meta name="robots" content="noindex">'
            elif state.noindex == "header":
                headers["X-Robots-Tag"] = "noindex"
            if state.canonical is not None:
                head += f'<link rel="canonical" href="{base}{state.canonical}">'
            text = f"<!doctype html><html><head>{head}</head><body>x</body></html>"
            return web.Response(status=state.status, text=text, headers=headers)

        routes: dict[str, Route] = {"/sitemap.xml": sitemap, "/robots.txt": robots}
        return routes | dict.fromkeys(self.pages, page)

    def set(self, paths: Iterable[str], **how: Any) -> None:
        """Pages that answer otherwise from tonight."""
        for path in paths:
            self.pages[path] = Page(**how)


def paths(prefix: str, count: int) -> list[str]:
    return [f"/{prefix}{n}" for n in range(count)]


@dataclass(frozen=True)
class Outputs:
    """What every output of a night says its regression count is."""

    json: int
    metrics: float
    junit: int
    junit_cases: list[tuple[str | None, str | None, str | None]]  # name, file, line


def outputs(report_path: Path, metrics: Path, junit: Path) -> Outputs:
    report = json.loads(report_path.read_bytes())
    families = {f.name: f for f in text_string_to_metric_families(metrics.read_text())}
    root = SafeET.parse(junit).getroot()
    assert root is not None
    suite = root.find("testsuite[@name='regressions']")
    assert suite is not None
    cases = suite.findall("testcase")
    assert suite.get("failures") == str(len(cases)) == suite.get("tests")
    return Outputs(
        json=report["diff"]["regressions"],
        metrics=families["sitemap_audit_regressions"].samples[0].value,
        junit=sum(1 for case in cases if case.find("failure") is not None),
        junit_cases=[(c.get("name"), c.get("file"), c.get("line")) for c in cases],
    )
