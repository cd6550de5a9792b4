"""The screenshots of the HTML report in README.md and docs/: the demo site, and a healthy site.

    .venv/bin/python -m docs.screenshots      # from the repository root; needs chromium

Both sites are served on 127.0.0.1 (auditor.demo), audited with URL checks, and their reports
photographed in headless Chromium (tests/browser.py) at a laptop's width. The demo is audited
once more with a month of access logs made up for its pages (a seeded, fixed month of
Googlebot, Bingbot and a false Googlebot): its "Googlebot" part is docs/images/report-logs.png.
"""

from __future__ import annotations

import asyncio
import json
import random
import tempfile
import zlib
from datetime import UTC, datetime, timedelta
from pathlib import Path

from auditor.config import AuditConfig, Target, TargetKind
from auditor.demo.server import DEMO_CA, serve, serve_demo
from auditor.demo.site import clean_routes
from auditor.flow.audit import audit
from tests.browser import Page, chromium, find_chromium
from tests.wings.logs.log_lines import (
    BINGBOT_IP,
    BINGBOT_UA,
    FORMATS,
    GOOGLEBOT_IP,
    IMAGE_UA,
    SPOOFER_IP,
    Hit,
    write_log,
)

DOCS = Path(__file__).parent
IMAGES = DOCS / "images"
SHOT_HEIGHT = 1500  # px of the page's top: verdict, counts, the fix-first list, the charts


async def _report(urls: tuple[str, ...], folder: Path, name: str, **settings: object) -> Path:
    config = AuditConfig(
        targets=tuple(Target(url, TargetKind.SITE, url) for url in urls),
        json=folder / f"{name}.json",
        timeout_s=2.0,
        retries=1,
        slow_s=1.0,
        **settings,  # type: ignore[arg-type]
    )
    result = await audit(config)
    return result.html_path


def month_of_logs(report: Path, log: Path) -> Path:
    """A month of the demo's access log: Googlebot on most listed pages, some never, others."""
    urls = json.loads(report.read_text("utf-8"))["urls"]
    paths = sorted({entry["loc"].split("/", 3)[3] for entry in urls if entry["sitemaps"]})
    rng = random.Random(40)  # noqa: S311 - made-up data, the same every time
    now = datetime.now(UTC)
    hits: list[Hit] = []
    for day in range(31):
        when = now - timedelta(days=31 - day)
        busy = 1.6 if when.weekday() < 5 else 0.8  # Googlebot's week, as a site sees it
        for path in paths:
            chance = 0.0 if zlib.crc32(path.encode()) % 7 == 0 else 0.25 * busy
            if rng.random() < chance:
                status = 503 if path.startswith("products") and day in (12, 13) else 200
                hits.append(
                    Hit(
                        GOOGLEBOT_IP,
                        when + timedelta(minutes=rng.randrange(1440)),
                        "/" + path,
                        status,
                    )
                )
        searches = range(int(rng.randrange(4, 12) * busy))
        hits += [Hit(GOOGLEBOT_IP, when, f"/search?q=shoes&page={n}") for n in searches]
        hits.append(Hit(GOOGLEBOT_IP, when, "/images/shoe.jpg", agent=IMAGE_UA))
        hits.append(Hit(BINGBOT_IP, when, "/", agent=BINGBOT_UA))
        hits += [Hit(SPOOFER_IP, when, "/products/shoe") for _ in range(rng.randrange(3))]
    hits.sort(key=lambda hit: hit.when)
    return write_log(log, [FORMATS["combined"](hit) for hit in hits])


async def section_shot(page: Page, selector: str, path: Path) -> Path:
    """A PNG of one part of the page, by its CSS selector."""
    box = await page.evaluate(
        f"(() => {{ const b = document.querySelector({selector!r}).getBoundingClientRect();"
        " return [b.top + scrollY, b.height]; })()"
    )
    top, height = (round(value) for value in box)
    return await page.screenshot(path, full_height=height + 16, top=max(0, top - 8))


async def main() -> None:
    """Audit both sites, then photograph their reports into docs/images/."""
    executable = find_chromium()
    if executable is None:
        raise SystemExit("chromium is needed: apt-get install chromium")
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        async with serve_demo() as urls:
            # as `sitemap-audit --demo` runs it: with the crawl, so coverage shows too
            broken = await _report(urls, folder, "broken", ca_file=DEMO_CA, crawl=True)
            log = month_of_logs(broken.with_suffix(".json"), folder / "access.log")
            logs = await _report(
                urls, folder, "logs", ca_file=DEMO_CA, crawl=True, access_logs=(log,)
            )
        async with serve(clean_routes) as served:
            clean = await _report((served.base + "/",), folder, "clean")
        async with chromium(executable) as browser:
            for report, name in ((broken, "report-broken.png"), (clean, "report-clean.png")):
                page = await browser.load(report.as_uri())
                shot = await page.screenshot(IMAGES / name, full_height=SHOT_HEIGHT)
                print(f"wrote {shot}")  # noqa: T201 - a script's one line of output
            page = await browser.load(logs.as_uri())
            shot = await section_shot(page, "#logs", IMAGES / "report-logs.png")
            print(f"wrote {shot}")  # noqa: T201


if __name__ == "__main__":
    asyncio.run(main())
