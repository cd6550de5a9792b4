"""hreflang across the run, as a wing: return links and alternates judged once all is read.

Each entry's own hreflang is judged as it is read (auditor.sitemap.extensions.hreflang); what
needs the whole run is this wing's. The sitemap readers put every entry's cluster into the run's
link store (auditor.wings.hreflang.link_store); once every sitemap is read, the return links are
judged and the alternates no sitemap lists go on as URL records of their own, checked as listed
URLs are (auditor.wings.hreflang.alternates); once every URL is checked, the alternates whose page
cannot be indexed are named (auditor.wings.hreflang.alternate_targets). Its findings go to the
sink as the run's own; it adds no section to the report. The rules:
docs/explanation/rules.md#hreflang.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from auditor.options.row import Option
from auditor.report.section import Section
from auditor.wings.feature import Conclusion, Lanes, Opening, Walked, WalkParts, Watch
from auditor.wings.hreflang.alternate_targets import AlternateTargets
from auditor.wings.hreflang.alternates import judge_alternates
from auditor.wings.hreflang.link_store import LinkStore, links_path


class HreflangFeature:
    """hreflang across the run, as the registry lists it."""

    name = "hreflang"
    rows: tuple[Option, ...] = ()  # no option: every run judges its hreflang

    async def open(self, run: Opening, /) -> HreflangWing:
        """Every run's: any entry may name alternates."""
        return HreflangWing(links_path(run.report))


FEATURE = HreflangFeature()


class HreflangWing:
    """One run's hreflang links, and where its alternates lead."""

    def __init__(self, path: Path) -> None:
        """`path`: the stem of the link store's temporary file, beside the report."""
        self._path = path
        self._store: LinkStore | None = None
        self._targets: AlternateTargets | None = None

    async def watch(self, parts: WalkParts, watch: Watch, /) -> Watch:
        """The link store opens; the readers put clusters in it, the checks their verdicts."""
        store = self._store = await parts.stack.enter_async_context(LinkStore(self._path))
        targets = self._targets = AlternateTargets(store)
        return replace(watch, watchers=(*watch.watchers, targets), clusters=store)

    def route(self, parts: WalkParts, lanes: Lanes, /) -> Lanes:
        """The return links judged once the sitemaps are read; where alternates lead, at the end.

        The alternates no sitemap lists take the URL stream as it is routed so far (a crawl's
        coverage, then the checks).
        """
        store, targets = self._store, self._targets
        assert store is not None
        assert targets is not None

        async def walked(walk: Walked) -> None:
            await lanes.walked(walk)
            listed, urls = parts.listed, lanes.urls
            await judge_alternates(store, listed=listed, emit_findings=parts.sink, emit_urls=urls)

        async def checked() -> None:
            await lanes.checked()
            found = await targets.findings()
            if found is not None:
                await parts.sink(found)

        return replace(lanes, walked=walked, checked=checked)

    async def finish(self, _ended: Conclusion, /) -> Section | None:
        """No section: its findings are the run's own, in the report's `run_findings`."""
        return None
