"""The HTML report's "Extensions" part: hreflang, image, video and news at a glance.

Counts per kind, each family's codes, and the hreflang clusters that miss return links first:
Google ignores a cluster whose pages do not all link back ("Tell Google about localized
versions of your page"). Built from the summary and the bounded samples only. Pure: no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass

from auditor.codes import Code
from auditor.report.html_rows import CodeRow, Link, by_worst, code_row, link
from auditor.results.samples import Example, Samples
from auditor.results.summary import Summary

FAMILIES = ("hreflang", "image", "video", "news")


@dataclass(frozen=True, slots=True)
class Unanswered:
    """One alternate a page names that does not name the page back."""

    hreflang: str
    alternate: Link


@dataclass(frozen=True, slots=True)
class ClusterLine:
    """A page of an hreflang cluster with the alternates that give no return link."""

    page: Link
    sitemap: Link | None
    unanswered: tuple[Unanswered, ...]


@dataclass(frozen=True, slots=True)
class ExtensionsView:
    """What the entries say in the extension namespaces, and what is wrong with it."""

    counts: tuple[tuple[str, int], ...]  # (label, count), the kinds the run has
    codes: tuple[CodeRow, ...]  # every extension code of the run, worst first
    clusters: tuple[ClusterLine, ...]  # pages missing return links, from the kept examples
    missing_returns: int  # every hreflang.no_return_link of the run

    @property
    def shown_returns(self) -> int:
        """The missing return links the cluster table shows."""
        return sum(len(line.unanswered) for line in self.clusters)


def extensions_view(summary: Summary, samples: Samples) -> ExtensionsView | None:
    """The part, or None when no entry of the run uses an extension."""
    counts = summary.extensions
    labelled = (
        ("URLs naming hreflang alternates", counts["hreflang_urls"]),
        ("hreflang links", counts["hreflang_links"]),
        ("Alternates no sitemap lists", summary.alternates),
        ("Images", counts["images"]),
        ("Videos", counts["videos"]),
        ("News articles", counts["news"]),
    )
    codes = tuple(code_row(code, n) for code, n in by_worst(summary) if _family(code) in FAMILIES)
    if not codes and not any(n for _, n in labelled):
        return None
    return ExtensionsView(
        counts=tuple((label, n) for label, n in labelled if n),
        codes=codes,
        clusters=_clusters(samples.examples.get(Code.HREFLANG_NO_RETURN_LINK, ())),
        missing_returns=summary.by_code[Code.HREFLANG_NO_RETURN_LINK],
    )


def _family(code: Code) -> str:
    return code.value.partition(".")[0]


def _clusters(examples: list[Example] | tuple[()]) -> tuple[ClusterLine, ...]:
    """The kept hreflang.no_return_link examples grouped by the page naming the alternate."""
    pages: dict[str, ClusterLine] = {}
    for example in examples:
        if example.url is None:
            continue
        detail = dict(example.detail)
        alternate = detail.get("alternate")
        if alternate is None:
            continue
        hreflang = detail.get("hreflang")
        missing = Unanswered(hreflang.value if hreflang else "", link(alternate))
        line = pages.get(example.url.value)
        if line is None:
            sitemap = link(example.sitemap) if example.sitemap is not None else None
            pages[example.url.value] = ClusterLine(link(example.url), sitemap, (missing,))
        else:
            pages[example.url.value] = ClusterLine(
                line.page, line.sitemap, (*line.unanswered, missing)
            )
    return tuple(pages.values())
