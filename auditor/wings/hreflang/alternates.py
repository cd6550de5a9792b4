"""Once every sitemap is read: the run's hreflang judged, and the alternates no sitemap lists.

Their findings go to the sink as one more kind of item; the alternates themselves become URL
records of their own (no listing sitemap, `alternate_of` the URL naming them), sent on like
listed URLs, so that with checks on they are checked too (a 404 alternate is an error).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Awaitable, Callable

from auditor.codes import Code
from auditor.models import Finding, RunFindings, UrlRecord, finding
from auditor.sitemap.read_services import EmitUrls
from auditor.wings.hreflang.link_store import LinkStore, LinkVerdict

# Run findings kept for the report (all are counted): at millions of URLs without return links,
# the findings are counted, never held.
MAX_RUN_FINDINGS = 1000
RECORDS_BATCH = 512

EmitFindings = Callable[[RunFindings], Awaitable[None]]


class CappedFindings:
    """Run findings as they come: the first MAX_RUN_FINDINGS kept, all counted."""

    def __init__(self) -> None:
        self.kept: list[Finding] = []
        self.omitted: Counter[Code] = Counter()

    def add(self, item: Finding) -> None:
        """One finding: kept, or counted past the cap."""
        if len(self.kept) < MAX_RUN_FINDINGS:
            self.kept.append(item)
        else:
            self.omitted[item.code] += 1

    def run_findings(self) -> RunFindings | None:
        """What to send to the sink (None: nothing was found)."""
        if not self.kept and not self.omitted:
            return None
        return RunFindings(tuple(self.kept), dict(self.omitted))


async def judge_alternates(
    store: LinkStore,
    *,
    listed: Callable[[int], bool],
    emit_findings: EmitFindings,
    emit_urls: EmitUrls,
) -> LinkVerdict:
    """Judge the clusters; send the findings and the unlisted alternates on, in batches."""
    capped = CappedFindings()
    verdict = await store.judge(listed=listed, report=capped.add)
    past_cap = verdict.unlisted_count - len(verdict.unlisted)  # counted, not checked
    if past_cap:
        capped.omitted[Code.HREFLANG_ALTERNATE_NOT_LISTED] += past_cap
    found = capped.run_findings()
    if found is not None:
        await emit_findings(found)
    batch: list[UrlRecord] = []
    for alternate in verdict.unlisted:
        notice = finding(
            Code.HREFLANG_ALTERNATE_NOT_LISTED,
            url=alternate.href,
            sitemap=alternate.sitemap,
            named_by=alternate.named_by,
        )
        batch.append(
            UrlRecord(
                alternate.href,
                (),
                findings=(notice,),
                digest=alternate.digest,
                alternate_of=alternate.named_by,
            )
        )
        if len(batch) >= RECORDS_BATCH:
            await emit_urls(batch)
            batch = []
    if batch:
        await emit_urls(batch)
    return verdict
