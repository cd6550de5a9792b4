"""The nightly recipe of docs/how-to/monitoring.md, run night after night as cron would run it.

`--fail-on never --fail-on-new warning`: a site with known errors passes until something new
breaks, on the URL side or the sitemap side, and goes green again once that is known.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import sys
from pathlib import Path

import pytest
from aiohttp import web

from auditor.demo.documents import url, urlset
from auditor.demo.server import Route, serve
from auditor.errors import ExitCode

# The recipe's command, as the how-to page shows it (tests/test_docs.py keeps them equal).
RECIPE = (
    "sitemap-audit --config audit.toml --fail-on never --fail-on-new warning "
    "--out reports --keep 30 $( [ -e latest.json ] && echo --baseline latest.json ); "
    "rc=$?; [ $rc -le 1 ] && report=$(ls -t reports/*.json | head -n 1) && "
    'ln -sf "$report" latest.json && ln -sf "${report%.json}.html" latest.html; exit $rc'
)


class Site:
    """Known errors from the first night: a dead page, a bad priority. Nights add more."""

    def __init__(self) -> None:
        self.broken: set[str] = {"/gone"}
        self.priority = "2.0"  # priority.invalid, known from the first night
        self.changefreq = "daily"

    def routes(self, base: str) -> dict[str, Route]:
        async def sitemap(_request: web.Request) -> web.StreamResponse:
            extra = (
                f"<priority>{self.priority}</priority><changefreq>{self.changefreq}</changefreq>"
            )
            entries = [url(f"{base}/{name}", extra=extra if name == "a" else "") for name in "abc"]
            entries.append(url(f"{base}/gone"))
            return web.Response(text=urlset(entries), content_type="application/xml")

        async def page(request: web.Request) -> web.StreamResponse:
            return web.Response(status=500 if request.path in self.broken else 200, text="ok")

        pages = dict.fromkeys(["/a", "/b", "/c", "/gone"], page)
        return {"/sitemap.xml": sitemap, **pages}


async def night(folder: Path, *, accept: str | None = None) -> int:
    """One run of the recipe in `folder`, `sitemap-audit` being this checkout's command."""
    return (await night_said(folder, accept=accept))[0]


async def night_said(folder: Path, *, accept: str | None = None) -> tuple[int, str]:
    """`night`, with what the job printed (its cron mail)."""
    command = RECIPE
    if accept is not None:
        command = command.replace("--fail-on never", f"--fail-on never --accept-file {accept}")
    bin_folder = folder / "bin"
    bin_folder.mkdir(exist_ok=True)
    script = bin_folder / "sitemap-audit"
    script.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m auditor "$@"\n')
    script.chmod(0o755)
    path = f"{bin_folder}{os.pathsep}{os.environ.get('PATH', '')}"
    process = await asyncio.create_subprocess_exec(
        "sh",
        "-c",
        command,
        cwd=folder,
        stdout=asyncio.subprocess.PIPE,
        env={**os.environ, "PATH": path},
    )
    out, _ = await process.communicate()
    return await process.wait(), out.decode()


@pytest.mark.slow
async def test_three_nights_and_more_of_the_recipe(tmp_path: Path) -> None:
    site = Site()
    async with serve(site.routes) as served:
        (tmp_path / "audit.toml").write_text(
            f'targets = ["{served.base}/sitemap.xml"]\nallow-private = true\n'
            "timeout = 2.0\nretries = 0\nno-progress = true\n"
        )
        # Night 1: no baseline yet (--fail-on-new has nothing to compare); known errors pass.
        assert await night(tmp_path) == ExitCode.OK
        report = json.loads((tmp_path / "latest.json").read_bytes())
        assert report["summary"]["by_severity"]["error"] == 2  # the 500 and the priority
        assert "diff" not in report
        # Night 2: nothing new.
        assert await night(tmp_path) == ExitCode.OK
        # Night 3: a new URL-side error.
        site.broken.add("/b")
        assert await night(tmp_path) == ExitCode.FINDINGS
        diff = json.loads((tmp_path / "latest.json").read_bytes())["diff"]
        assert (diff["regressions"], diff["new_findings"]) == (1, {"http.server_error": 1})
        # Night 4: /b is known now; a new sitemap-side error (a warning) fails the night.
        site.changefreq = "sometimes"
        assert await night(tmp_path) == ExitCode.FINDINGS
        diff = json.loads((tmp_path / "latest.json").read_bytes())["diff"]
        assert diff["new_findings"] == {"changefreq.invalid": 1}
        # Night 5: everything known: green again.
        assert await night(tmp_path) == ExitCode.OK
    assert_the_html_names_the_json_beside_it(tmp_path / "latest.html")


def assert_the_html_names_the_json_beside_it(html: Path) -> None:
    """The latest HTML report's "Full data" is the JSON report beside it, of the same night."""
    page = html.resolve()
    named = re.search(r'Full data: <span class="mono">([^<]+)</span>', page.read_text())
    assert named is not None
    beside = page.parent / named[1]
    assert beside.is_file()
    assert beside.resolve() == (html.parent / "latest.json").resolve()


@pytest.mark.slow
async def test_an_accepted_issue_neither_fails_nor_regresses(tmp_path: Path) -> None:
    site = Site()
    accept = tmp_path / "known-issues.txt"
    accept.write_text("# known issues\nhttp.server_error /c$\n")
    async with serve(site.routes) as served:
        (tmp_path / "audit.toml").write_text(
            f'targets = ["{served.base}/sitemap.xml"]\nallow-private = true\n'
            "timeout = 2.0\nretries = 0\nno-progress = true\n"
        )
        assert await night(tmp_path, accept=str(accept)) == ExitCode.OK
        site.broken.add("/c")
        assert await night(tmp_path, accept=str(accept)) == ExitCode.OK
    report = json.loads((tmp_path / "latest.json").read_bytes())
    assert report["diff"]["new_findings"] == {"http.server_error": 1}  # said, and accepted
    assert report["diff"]["regressions"] == 0
    [entry] = [e for e in report["urls"] if e["loc"].endswith("/c")]
    assert entry["findings"][0]["accepted"] is True
    assert report["summary"]["accepted"] == {"http.server_error": 1}
