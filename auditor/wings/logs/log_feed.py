"""A log's bytes in, the tally fed: sans-IO, whatever splits the bytes arrive in.

Per block of whole lines: every line checked against its format in one call (a valid line is
one match; the others are bad lines, counted and three kept as examples); then only the lines
that name a crawler (found by a plain search for the marks every claim holds) are read field by
field: the claim checked against the crawler's ranges, the time, the status, the page, one row
of the tally. Nothing is kept of the other lines. Pure: no I/O.

See docs/explanation/rules.md#server-logs.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from auditor.wings.logs.crawler_names import CLAIM_MARKS, SEARCH, Bot, CrawlerNames
from auditor.wings.logs.crawler_ranges import Address, CrawlerRanges
from auditor.wings.logs.log_formats import (
    PRESETS,
    TEXT_PATTERNS,
    LogField,
    LogFormat,
    Path,
    TextPattern,
    json_object,
)
from auditor.wings.logs.log_tally import (
    DAY_S,
    HOSTLESS,
    PAGE,
    BadLine,
    Hosts,
    LogCounts,
    UrlHits,
    Window,
)
from auditor.wings.logs.log_targets import (
    Target,
    host_of,
    is_page,
    page_key,
    request_target,
    target_key,
)
from auditor.wings.logs.log_times import ClfTimes, json_seconds

# A line a block's plain lines left (they leave empty lines, as blank lines are).
_LEFT = re.compile(rb"^(?!\r?$)[^\n]+", re.MULTILINE)
_JUDGED = 65_536  # (user agent, address) pairs remembered: a crawler's are few
MAX_LINE_BYTES = 64 * 1024  # a line longer than this is never held whole: a bad line (overlong)
BAD_EXAMPLES = 3  # bad lines kept as examples
EXAMPLE_CHARS = 160  # of each
SPOOLED = 16  # a row flag: its key was handed to the spool (`new_keys`)


def clean_block(pattern: TextPattern, block: bytes) -> tuple[bytes, int]:
    """`block` with its plain lines emptied, and how many: LogFeed.clean, here or a helper's.

    Each match is a line's end and a plain line (TextPattern.clean), replaced by the line's
    end: the block is given a line's end before its first line, taken off the result.
    """
    left, plain = pattern.clean.subn(b"\n", b"\n" + block)
    return left[1:], plain


@dataclass(slots=True)
class LogRun:
    """What every file of a run's logs feeds: the tally, the counts, and what reads a line."""

    ranges: CrawlerRanges
    window: Window
    fields: Mapping[LogField, Path] = field(default_factory=dict)  # --log-field
    hits: UrlHits = field(default_factory=UrlHits)
    counts: LogCounts = field(default_factory=LogCounts)
    hosts: Hosts = field(default_factory=Hosts)
    names: CrawlerNames = field(default_factory=CrawlerNames)
    clf: ClfTimes = field(default_factory=ClfTimes)
    # Keys of rows Google Search hit first in the last block, for the spool: (digest, key).
    new_keys: list[tuple[int, str]] = field(default_factory=list)
    by_host: bool = False  # some rows are keyed by host and path (the log names hosts)
    by_path: bool = False  # some by path alone (it names none)


@dataclass(slots=True)
class FileStats:
    """One file as read: its format, lines, bad lines, and whether it ended early."""

    source: str
    format: LogFormat
    lines: int = 0
    bad: int = 0
    truncated: bool = False  # a gzip stream that ends early, or a file that could not be read on
    first_s: int | None = None  # its first line's time, and its last's: the span it covers
    last_s: int | None = None


class LogFeed:
    """One file's lines, fed in any pieces; `close()` once its bytes are over."""

    def __init__(self, run: LogRun, stats: FileStats) -> None:
        self._run = run
        self.stats = stats
        self._carry = b""
        self._skipping = False  # inside an overlong line: drop bytes up to its end
        self._started = False  # the first line's time is known (the logs' span)
        self._judged: dict[tuple[bytes, bytes], tuple[Bot | None, Address]] = {}
        fmt = stats.format
        self._text = TEXT_PATTERNS.get(fmt)
        self._fields = PRESETS.get(fmt, PRESETS[LogFormat.JSON]).overridden(run.fields)

    @property
    def text(self) -> bool:
        """Whether its lines are of a text format (their plain lines are emptied by `clean`)."""
        return self._text is not None

    def feed(self, data: bytes) -> None:
        """Some bytes of the file (any split)."""
        for block in self.blocks(data):
            self.take(block)

    def blocks(self, data: bytes) -> list[bytes]:
        """The whole lines `data` ends, as blocks for `take` (a line begun is kept for later)."""
        found: list[bytes] = []
        if self._skipping:
            end = data.find(b"\n")
            if end < 0:
                return found
            self._skipping = False
            self.stats.lines += 1
            data = data[end + 1 :]
        start = 0
        if self._carry:  # the line begun in the last piece, alone (no copy of this piece)
            first = data.find(b"\n") + 1
            if not first:
                self._carry += data
            else:
                found.append(self._carry + data[:first])
                self._carry, start = b"", first
        cut = data.rfind(b"\n") + 1
        if cut > start:
            self._carry = data[cut:]
            found.append(data[start:cut] if start or cut < len(data) else data)
        elif start or not self._carry:
            self._carry = data[start:]
        if len(self._carry) > MAX_LINE_BYTES:
            self._run.counts.lines += 1
            self._bad(self._carry, "overlong", self.stats.lines + 1)
            self._carry, self._skipping = b"", True
        return found

    def close(self, *, truncated: bool = False) -> None:
        """The file is over (`truncated`: it ended before its compressed stream did)."""
        carry, self._carry = self._carry, b""
        if self._skipping:
            self.stats.lines += 1
        elif carry.strip():
            if truncated:
                self.stats.lines += 1
                self._run.counts.lines += 1
                self._bad(carry, "truncated", self.stats.lines)
            else:
                self.take(carry + b"\n")
        self.stats.truncated = self.stats.truncated or truncated
        for seconds in (self.stats.first_s, self.stats.last_s):
            if seconds is not None:
                self._run.counts.saw_time(seconds)

    # --- a block of whole lines ---

    def clean(self, block: bytes) -> tuple[bytes, int]:
        """A text block with its plain lines emptied in one call, and how many there were.

        A plain line is valid and holds no claim in its user agent; what is left is the claims
        and the bad lines. What a helper process does for a block (log_helpers).
        """
        assert self._text is not None
        return clean_block(self._text, block)

    def take(self, block: bytes, cleaned: tuple[bytes, int] | None = None) -> None:
        """The whole lines of `block` (it ends with a line's end), `cleaned` when it was."""
        if not self._started:
            self._started = True
            self.stats.first_s = self._line_time(block[: block.find(b"\n")])
        if self._text is None:
            self._json_block(block)
            return
        left, plain = cleaned if cleaned is not None else self.clean(block)
        lines = left.count(b"\n")
        kept = len(_LEFT.findall(left))  # it skips a kept line whole: ^ alone would try each byte
        counts = self._run.counts
        counts.lines += plain + kept
        counts.blank += lines - plain - kept
        rows = self._text.rows.findall(left)
        bad = kept - len(rows)
        if bad:
            self._bad_lines(left, bad)
        if rows and self._text.groups[5]:
            self._claims(rows, left)
        last = self._line_time(block[block.rfind(b"\n", 0, len(block) - 1) + 1 : -1])
        self.stats.last_s = last if last is not None else self.stats.last_s
        self.stats.lines += lines

    def _bad(self, line: bytes, reason: str, number: int) -> None:
        self._run.counts.bad += 1
        self.stats.bad += 1
        self._example(line, reason, number)

    def _example(self, line: bytes, reason: str, number: int) -> None:
        examples = self._run.counts.bad_examples
        if len(examples) < BAD_EXAMPLES:
            text = line[:EXAMPLE_CHARS].decode("utf-8", "backslashreplace")
            shown = "".join(c if c.isprintable() else f"\\x{ord(c):02x}" for c in text)
            examples.append(BadLine(self.stats.source, number, reason, shown))

    def _line_time(self, line: bytes) -> int | None:
        """A line's time, for the file's span: its first line, each block's last one."""
        line = line.rstrip(b"\r")
        seconds = None
        if self._text is not None:
            found = self._text.line.match(line)
            if found is not None:
                seconds = self._run.clf.seconds(found.group(self._text.groups[2]))
        elif (document := json_object(line)) is not None:
            seconds = json_seconds(self._fields.value(document, LogField.TIME), self._run.clf)
        return seconds

    # --- the lines that name a crawler ---

    def _bad_lines(self, left: bytes, bad: int) -> None:
        """Bad lines among a block's leftovers: counted, the first ones kept as examples."""
        counts = self._run.counts
        counts.bad += bad
        self.stats.bad += bad
        if len(counts.bad_examples) >= BAD_EXAMPLES:
            return
        assert self._text is not None
        for found in _LEFT.finditer(left):
            if self._text.line.match(found.group()) is None:
                number = self.stats.lines + left.count(b"\n", 0, found.start()) + 1
                self._example(found.group(), "not_the_format", number)
                if len(counts.bad_examples) >= BAD_EXAMPLES:
                    return

    def _claims(self, rows: list[tuple[bytes, ...]], left: bytes) -> None:
        """Valid lines whose user agent holds a mark: claims, read field by field.

        A row is the line, then its fields: a field's group number is its index in the row.
        """
        assert self._text is not None
        vhost, address_at, time_at, request_at, status_at, agent_at = self._text.groups
        run = self._run
        judged, seconds_of, claims = self._judged, run.clf.seconds, run.counts.claims
        for row in rows:
            agent, address = row[agent_at], row[address_at]
            known = judged.get((agent, address))
            if known is None:
                known = self._judge(agent, address)
            crawler, where = known
            if crawler is None:
                continue
            seconds = seconds_of(row[time_at])
            if seconds is None:
                number = self.stats.lines + left.count(b"\n", 0, left.find(row[0])) + 1
                self._bad(row[0], "bad_time", number)
            elif where is not Address.VERIFIED:
                self._refused(crawler, where, address)
            else:
                claims[crawler].verified += 1
                host = host_of(row[vhost].decode("ascii", "replace")) if vhost else None
                key = page_key(row[request_at], host)
                self._hit(crawler, seconds, int(row[status_at]), key, host)

    def _judge(self, agent: bytes, address: bytes) -> tuple[Bot | None, Address]:
        """Who a user agent claims to be, and what its address is for that (remembered)."""
        run = self._run
        crawler = run.names.claim(agent)
        where = run.ranges.check(address, crawler.family) if crawler else Address.NOT_AN_ADDRESS
        judged = self._judged
        if len(judged) >= _JUDGED:
            judged.clear()
        judged[agent, address] = crawler, where
        return crawler, where

    def _refused(self, crawler: Bot, where: Address, address: bytes) -> None:
        """A claim its address does not bear out, counted by what the address is."""
        counts = self._run.counts
        claims = counts.claims[crawler]
        match where:
            case Address.OUTSIDE:
                claims.outside += 1
                counts.spoofed(address)
            case Address.PRIVATE:
                claims.private += 1
            case Address.NOT_AN_ADDRESS:
                claims.not_an_address += 1
            case Address.VERIFIED:
                claims.verified += 1

    def _hit(
        self, crawler: Bot, seconds: int, status: int, key: Target | None, host: str | None
    ) -> None:
        """One verified hit on the page `key` names: the window's counts, and the page's row."""
        run = self._run
        in_window = seconds >= run.window.start_s
        search = crawler in SEARCH
        if search:
            counts = run.counts
            if in_window:
                counts.per_day[seconds // DAY_S] += 1
                counts.by_status[status // 100] += 1
            else:
                counts.before_window += 1
        if key is None:
            run.counts.no_page += 1
            return
        hits = run.hits
        made = len(hits.hits)
        if host:
            index = hits.row(key[0], run.hosts.ordinal(host), 0)
        else:
            index = hits.row(key[0], 0, HOSTLESS)
        if index == made:
            self._new_row(index, key[1], host)
        hits.hit(index, crawler, seconds, status, in_window)
        if search and hits.flags[index] & (PAGE | SPOOLED) == PAGE:
            hits.flags[index] |= SPOOLED
            run.new_keys.append((key[0], key[1].decode("utf-8", "replace")))

    def _new_row(self, index: int, key: bytes, host: str | None) -> None:
        run = self._run
        if host:
            run.by_host = True
        else:
            run.by_path = True
        if is_page(key):
            run.hits.flags[index] |= PAGE

    # --- JSON lines ---

    def _json_block(self, block: bytes) -> None:
        number = self.stats.lines
        counts = self._run.counts
        last = None
        for line in block.split(b"\n")[:-1]:
            number += 1
            if not line.strip():
                counts.blank += 1
                continue
            counts.lines += 1
            document = json_object(line)
            if document is None:
                self._bad(line, "not_the_format", number)
                continue
            last = document
            if CLAIM_MARKS[0] in line or CLAIM_MARKS[1] in line:
                self._json_claim(document, line, number)
        self.stats.lines = number
        if last is not None:
            seconds = json_seconds(self._fields.value(last, LogField.TIME), self._run.clf)
            self.stats.last_s = seconds if seconds is not None else self.stats.last_s

    def _json_claim(self, document: dict[str, object], line: bytes, number: int) -> None:
        value = self._fields.value
        agent = value(document, LogField.AGENT)
        crawler = self._run.names.claim(agent.encode()) if isinstance(agent, str) else None
        if crawler is None:
            return
        seconds = json_seconds(value(document, LogField.TIME), self._run.clf)
        status = _status(value(document, LogField.STATUS))
        if seconds is None or status is None:
            self._bad(line, "bad_time" if seconds is None else "not_the_format", number)
            return
        logged = value(document, LogField.ADDRESS)
        address = str(logged).encode() if logged is not None else b"-"
        where = self._run.ranges.check(address, crawler.family)
        if where is not Address.VERIFIED:
            self._refused(crawler, where, address)
            return
        self._run.counts.claims[crawler].verified += 1
        host = value(document, LogField.HOST)
        target = value(document, LogField.TARGET)
        if not isinstance(target, str):
            request = value(document, LogField.REQUEST)
            found = request_target(request.encode()) if isinstance(request, str) else None
            target = found.decode("utf-8", "replace") if found is not None else None
        hosted = host_of(host) if isinstance(host, str) else None
        key = target_key(target.encode(), hosted) if target else None
        self._hit(crawler, seconds, status, key, hosted)


def _status(value: object) -> int | None:
    """An HTTP status from a JSON field (a number, or digits as nginx's escape=json writes)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, str) and value.isdigit():
        value = int(value)
    return value if isinstance(value, int) and 100 <= value <= 999 else None
