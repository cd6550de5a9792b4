"""Known issues a job accepts (`--accept-file`): which findings are reported but never fail.

A line names a code, a URL pattern, or both, as lychee's `.lycheeignore` names URLs:

    http.not_found                          every 404 and 410
    https://example\\.com/legacy/            every finding on a URL that matches (searched)
    redirect.* https://example\\.com/go/     a family of codes, on matching URLs only

A line starting with `#` is a comment. Patterns are RE2's, matched in time linear in the URL
(auditor.checks.url_patterns): the site writes the URLs, and no URL of its can hang the run. An
accepted finding stays in every report, marked `accepted`, and counts towards neither the exit
code nor the regressions. Pure: no I/O.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from auditor.checks.url_patterns import UrlPatterns, check_pattern
from auditor.codes import Code
from auditor.errors import ConfigError
from auditor.models import Finding, RunFindings, SitemapRecord, TargetRecord, UrlRecord

# A first word shaped like a code (`http.not_found`) or a family (`http.*`) is one: a typo in it
# is an error, never a URL pattern that matches nothing.
_CODE_SHAPED = re.compile(r"[a-z]+\.(?:[a-z_]+|\*)")
_FAMILIES = frozenset(code.value.partition(".")[0] for code in Code)


@dataclass(frozen=True, slots=True)
class AcceptRule:
    """One line of the file: the codes it accepts (None: any), where (None: any URL)."""

    codes: frozenset[Code] | None
    pattern: str | None  # checked by auditor.checks.url_patterns
    line: int


class AcceptRules:
    """The rules of an accept file, looked up by code."""

    def __init__(self, rules: Sequence[AcceptRule]) -> None:
        """`rules` as `parse_accept_rules` reads them."""
        self.rules = tuple(rules)
        # Codes accepted wherever they are; per code, the patterns of its rules, searched in
        # one pass; the patterns of rules without a code.
        self._everywhere = frozenset(
            code for rule in rules if rule.pattern is None for code in rule.codes or ()
        )
        by_code: dict[Code, list[str]] = {}
        for rule in rules:
            for code in rule.codes or ():
                if rule.pattern is not None:
                    by_code.setdefault(code, []).append(rule.pattern)
        self._by_code = {code: UrlPatterns(patterns) for code, patterns in by_code.items()}
        self._any_code = UrlPatterns(
            [rule.pattern for rule in rules if rule.codes is None and rule.pattern is not None]
        )

    def __bool__(self) -> bool:
        return bool(self.rules)

    def accepts(self, code: Code, url: str | None) -> bool:
        """Whether a finding of `code` about `url` (None: about nothing addressable) is known."""
        if code in self._everywhere:
            return True
        if url is None:
            return False
        patterns = self._by_code.get(code)
        if patterns is not None and patterns.search(url):
            return True
        return bool(self._any_code) and self._any_code.search(url)

    def mark(self, findings: tuple[Finding, ...], url: str | None) -> tuple[Finding, ...]:
        """`findings` with the accepted ones marked (the same tuple when none is)."""
        if not any(self.accepts(item.code, item.url or url) for item in findings):
            return findings
        return tuple(
            replace(item, accepted=True) if self.accepts(item.code, item.url or url) else item
            for item in findings
        )

    def mark_url(self, record: UrlRecord) -> None:
        """Mark the accepted findings of a URL's record, its listing's and its check's."""
        if record.findings:
            record.findings = self.mark(record.findings, record.loc)
        check = record.check
        if check is not None and check.findings:
            check.findings = self.mark(check.findings, record.loc)

    def mark_sitemap(self, record: SitemapRecord) -> tuple[SitemapRecord, Counter[Code]]:
        """The record with its accepted findings marked, and its counted-only accepted ones."""
        omitted = Counter(
            {
                code: n
                for code, n in record.findings_omitted.items()
                if self.accepts(code, record.url)
            }
        )
        findings = self.mark(record.findings, record.url)
        if findings is not record.findings:
            record = replace(record, findings=findings)
        return record, omitted

    def mark_target(self, record: TargetRecord) -> TargetRecord:
        """The target's record with its accepted findings marked."""
        findings = self.mark(record.findings, record.url)
        return record if findings is record.findings else replace(record, findings=findings)

    def mark_run(self, item: RunFindings) -> tuple[RunFindings, Counter[Code]]:
        """Run findings with the accepted ones marked, and the counted-only accepted ones."""
        omitted = Counter({code: n for code, n in item.omitted.items() if self.accepts(code, None)})
        findings = self.mark(item.findings, None)
        return (item if findings is item.findings else replace(item, findings=findings)), omitted


NO_RULES = AcceptRules(())


def parse_accept_rules(text: str, *, source: str) -> AcceptRules:
    """The rules of an accept file's text; ConfigError naming the first bad line."""
    return AcceptRules([rule for rule in _rules(text.splitlines(), source=source) if rule])


def _rules(lines: Iterable[str], *, source: str) -> Iterable[AcceptRule | None]:
    for number, raw in enumerate(lines, 1):
        words = [] if raw.lstrip().startswith("#") else raw.split()
        if not words:
            yield None
            continue
        where = f"{source}, line {number}"
        if len(words) > 2:
            raise ConfigError(f"{where}: want 'CODE', 'URL-PATTERN' or 'CODE URL-PATTERN'")
        codes = _codes(words[0], where=where) if _CODE_SHAPED.fullmatch(words[0]) else None
        if codes is None and len(words) == 2:
            raise ConfigError(f"{where}: the code comes first, then the URL pattern")
        pattern = words[-1] if codes is None or len(words) == 2 else None
        yield AcceptRule(codes, _checked(pattern, where=where), number)


def _codes(word: str, *, where: str) -> frozenset[Code]:
    family, _, name = word.partition(".")
    if name == "*":
        if family not in _FAMILIES:
            raise ConfigError(f"{where}: no code family {word!r}")
        return frozenset(code for code in Code if code.value.startswith(family + "."))
    try:
        return frozenset({Code(word)})
    except ValueError:
        raise ConfigError(f"{where}: unknown code {word!r}") from None


def _checked(pattern: str | None, *, where: str) -> str | None:
    if pattern is None:
        return None
    try:
        check_pattern(pattern)
    except ValueError as exc:
        raise ConfigError(f"{where}: bad URL pattern {pattern!r} ({exc})") from None
    return pattern
