"""A URL as a tuple until it has something to say (docs/explanation/design.md#engine).

Most URLs of a healthy site are listed once, answer 2xx and may be indexed: they travel as these
tuples, and their records (auditor.models.UrlRecord) are made only where one is read.
"""

from __future__ import annotations

from typing import NamedTuple

from auditor.models import CheckResult, Finding, UrlRecord


class Clean(NamedTuple):
    """A check with nothing to say: the listed URL itself answered 2xx, and may be indexed.

    A tuple until it has something to say (most URLs of a healthy site end so): its CheckResult
    is made only where a record is needed (`result`).
    """

    status: int
    elapsed_ms: int
    method: str
    last_modified: str | None
    etag: str | None

    def result(self, loc: str) -> CheckResult:
        """The CheckResult this check stands for."""
        return CheckResult(
            self.status,
            loc,
            self.status,
            (),
            self.elapsed_ms,
            self.method,
            (),
            self.last_modified,
            None,
            self.etag,
        )


class Listed(NamedTuple):
    """A listed URL with nothing to say of its own (no finding, no extension): a tuple.

    It reads as its UrlRecord would; `record` makes that, where one is needed.
    """

    loc: str
    sitemap: str
    line: int | None
    lastmod: str | None
    changefreq: str | None
    priority: str | None
    digest: int

    @property
    def sitemaps(self) -> tuple[str, ...]:
        """The sitemap that lists it."""
        return (self.sitemap,)

    @property
    def findings(self) -> tuple[Finding, ...]:
        """None: it has nothing to say."""
        return ()

    @property
    def check(self) -> None:
        """Not requested (a Checked pairs it with its check)."""

    @property
    def fresh_check(self) -> None:
        """Not requested."""

    @property
    def extensions(self) -> None:
        """None: it has none."""

    @property
    def listed(self) -> bool:
        """A sitemap lists it."""
        return True

    def record(self) -> UrlRecord:
        """Its UrlRecord."""
        return UrlRecord(
            self.loc,
            (self.sitemap,),
            self.line,
            self.lastmod,
            self.changefreq,
            self.priority,
            (),
            None,
            self.digest,
        )

    def with_check(self, check: CheckResult) -> UrlRecord:
        """Its UrlRecord with its check."""
        record = self.record()
        record.check = check
        return record


class Checked(NamedTuple):
    """A Listed URL whose check had nothing to say either (a Clean one): two tuples."""

    listed: Listed
    clean: Clean

    def record(self) -> UrlRecord:
        """The UrlRecord both stand for."""
        return self.listed.with_check(self.clean.result(self.listed.loc))
