"""The screenshots of the HTML report in README.md and docs/: the demo site, and a healthy site.

    .venv/bin/python -m docs.screenshots      # from the repository root; needs chromium

Both sites are served on 127.0.0.1 (auditor.demo), audited with URL checks, and their reports
photographed in headless Chromium (tests/browser.py) at a laptop's width.
"""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path

from auditor.config import AuditConfig, Target, TargetKind
from auditor.demo.server import DEMO_CA, serve, serve_demo
from auditor.demo.site import clean_routes
from auditor.flow.audit import audit
from tests.browser import chromium, find_chromium

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
        async with serve(clean_routes) as served:
            clean = await _report((served.base + "/",), folder, "clean")
        async with chromium(executable) as browser:
            for report, name in ((broken, "report-broken.png"), (clean, "report-clean.png")):
                page = await browser.load(report.as_uri())
                shot = await page.screenshot(IMAGES / name, full_height=SHOT_HEIGHT)
                print(f"wrote {shot}")  # noqa: T201 - a script's one line of output


if __name__ == "__main__":
    asyncio.run(main())
