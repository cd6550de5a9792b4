"""What the logs say, added up: per URL key the verified crawlers' hits, and the run's counts.

Per URL key (auditor.wings.logs.log_targets) a compact row: Google Search's hits in the
window, the last hit (whenever it was) and its status, the errors Googlebot met, Bingbot's
hits, which verified crawlers came, the host and whether the URL looks like a page. Rows live
in flat arrays indexed through a digest table (auditor.results.digest_table) while the logs
are read, then through their sorted digests: 27 bytes a URL once frozen, where Python objects
would cost hundreds. Pure: no I/O.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field

from auditor.models import StatusClass
from auditor.results.digest_table import DigestTable
from auditor.wings.logs.crawler_names import BITS, SEARCH, Bot

DAY_S = 86_400
MAX_HOSTS = 255  # hosts told apart; the others share ordinal 255
OTHER_HOST = 255
MAX_SPOOFERS = 4096  # addresses of false claims counted one by one; the rest in one count
_U16 = 65_535
_U32 = 2**32 - 1

# A row's flags
PAGE = 1  # its path looks like a page's (auditor.wings.logs.log_targets)
LISTED = 2  # a sitemap lists it (set by the join)
REMEMBERED = 4  # its last hit came from the history (--history), not only from these logs
HOSTLESS = 8  # keyed by its path alone: the log names no host


def is_error(status: int) -> bool:
    """An answer that is the crawler's error: a 5xx, or nginx's 499 (it stopped waiting).

    nginx logs 499 when the client closed the connection before the answer: a crawler that
    gave up, its timeout (nginx, ngx_http_request.h: NGX_HTTP_CLIENT_CLOSED_REQUEST).
    """
    return status >= 500 or status == 499


Span = tuple[int, int]  # (first, last) Unix seconds a run's logs covered


@dataclass(slots=True)
class Window:
    """The days the report is about: `--log-days` before the run's start."""

    start_s: int
    end_s: int

    def __contains__(self, value: object) -> bool:
        return isinstance(value, int) and self.start_s <= value

    def covered_by(self, spans: list[Span]) -> bool:
        """Whether the logs' spans together cover the window, a day's gap or edge allowed.

        Rotated logs leave small gaps (a night between two files, a run some hours after the
        last line): up to a day is taken as covered, never more.
        """
        merged: list[list[int]] = []
        for first, last in sorted(spans):
            if merged and first <= merged[-1][1] + DAY_S:
                merged[-1][1] = max(merged[-1][1], last)
            else:
                merged.append([first, last])
        return any(
            first <= self.start_s + DAY_S and last >= self.end_s - DAY_S for first, last in merged
        )


class UrlHits:
    """Per URL key: the verified crawlers' hits, in flat arrays.

    While the logs are read, rows are found through an open digest table; `freeze()` then
    orders the rows by digest and keeps only the digests, sorted: a row is found by bisection.
    """

    def __init__(self) -> None:
        self._open: DigestTable | None = DigestTable()
        self._keys = array("Q")  # once frozen: row i's digest, ascending
        self.hits = array("I")  # Google Search's hits in the window
        self.last = array("I")  # Google Search's last hit, Unix seconds (0: none)
        self.status = array("H")  # its status
        self.errors = array("H")  # Google Search's hits in the window that were errors
        self.bing = array("I")  # Bingbot's hits in the window
        self.bots = array("B")  # the verified crawlers that came (Bot.bit), any time
        self.host = array("B")  # the host's ordinal (Hosts)
        self.flags = array("B")

    def __len__(self) -> int:
        return len(self.hits)

    def row(self, digest: int, host: int, flags: int) -> int:
        """The row of `digest`, made when new (positional: one call a log line)."""
        table = self._open
        assert table is not None, "rows are made before freeze()"
        index = len(self.hits)
        found = table.setdefault(digest, index)
        if found is not None:
            return found
        self.hits.append(0)
        self.last.append(0)
        self.bing.append(0)
        self.status.append(0)
        self.errors.append(0)
        self.bots.append(0)
        self.host.append(host)
        self.flags.append(flags)
        return index

    def find(self, digest: int) -> int | None:
        """The row of `digest`, if any."""
        if self._open is not None:
            return self._open.get(digest)
        keys = self._keys
        index = bisect_left(keys, digest)
        return index if index < len(keys) and keys[index] == digest else None

    def freeze(self) -> None:
        """No row is made any more: the rows in digest order, found by bisection.

        The sorted digests cost 8 bytes a row, where the open table costs 18 to 36.
        """
        if self._open is None:
            return
        frozen, self._open = self._open.frozen(), None  # sorted by digest: 12 bytes a row
        order = array("I")
        for digest, index in frozen.items():
            self._keys.append(digest)
            order.append(index)
        del frozen
        for name in _COLUMNS:  # one column at a time: memory holds two copies of one at most
            column = getattr(self, name)
            setattr(self, name, array(column.typecode, (column[index] for index in order)))
            del column

    def hit(self, index: int, crawler: Bot, time_s: int, status: int, in_window: bool) -> None:  # noqa: FBT001 - positional: one call a log line
        """One verified hit of `crawler` on row `index` (positional: one call a log line)."""
        self.bots[index] |= BITS[crawler]
        if crawler is Bot.BINGBOT:
            if in_window:
                self.bing[index] = min(_U32, self.bing[index] + 1)
            return
        if crawler not in SEARCH:
            return
        if time_s >= self.last[index]:
            self.last[index] = time_s
            self.status[index] = min(status, _U16)
            self.flags[index] &= ~REMEMBERED
        if in_window:
            self.hits[index] = min(_U32, self.hits[index] + 1)
            if is_error(status):
                self.errors[index] = min(_U16, self.errors[index] + 1)

    def remember(self, index: int, *, last_s: int, status: int) -> None:
        """An earlier run's last hit (--history), unless these logs have a later one."""
        if last_s > self.last[index]:
            self.last[index] = last_s
            self.status[index] = min(status, _U16)
            self.flags[index] |= REMEMBERED

    def rows(self) -> Iterator[tuple[int, int]]:
        """(digest, row) of every row (in digest order once frozen)."""
        if self._open is not None:
            return self._open.items()
        return ((digest, index) for index, digest in enumerate(self._keys))


_COLUMNS = ("hits", "last", "status", "errors", "bing", "bots", "host", "flags")
assert len(BITS) <= 8, "a row's crawlers fit a byte"


class Hosts:
    """Logged hosts to ordinals 1-254 (0: the log names none; 255: one of too many)."""

    def __init__(self) -> None:
        self._ordinals: dict[str, int] = {}
        self.names: list[str] = [""]

    def ordinal(self, host: str | None) -> int:
        if not host:
            return 0
        found = self._ordinals.get(host)
        if found is None:
            found = len(self.names) if len(self.names) < MAX_HOSTS else OTHER_HOST
            if found != OTHER_HOST:
                self.names.append(host)
            self._ordinals[host] = found
        return found

    def get(self, host: str) -> int | None:
        """The ordinal of a host the logs named; None when they did not name it."""
        return self._ordinals.get(host)


@dataclass(slots=True)
class BadLine:
    """A line kept as an example of a bad one (three at most are kept)."""

    source: str
    line: int
    reason: str  # overlong, not_the_format, bad_time, truncated
    text: str  # the line's start, made printable


@dataclass(slots=True)
class Claims:
    """The lines one crawler's user agent names, by what their address is."""

    verified: int = 0
    outside: int = 0  # a public address outside its ranges: a false claim
    private: int = 0  # a private address: a proxy's, most likely
    not_an_address: int = 0  # a host name or junk: cannot be verified


@dataclass(slots=True)
class LogCounts:
    """The run's counts of every line read."""

    lines: int = 0
    blank: int = 0
    bad: int = 0
    bad_examples: list[BadLine] = field(default_factory=list)
    claims: dict[Bot, Claims] = field(default_factory=lambda: {c: Claims() for c in Bot})
    spoofers: Counter[str] = field(default_factory=Counter)  # a false claim's address: lines
    spoofers_uncounted: int = 0  # false claims from addresses past MAX_SPOOFERS
    no_page: int = 0  # verified hits whose request names no page (`*`, junk, `-`)
    before_window: int = 0  # Google Search's verified hits older than the window
    per_day: Counter[int] = field(default_factory=Counter)  # Search hits a day (days since 1970)
    by_status: Counter[int] = field(default_factory=Counter)  # Search hits by status // 100
    first_s: int | None = None  # the earliest line's time (each file's first and last lines)
    last_s: int | None = None

    def status_classes(self) -> dict[StatusClass, int]:
        """Google Search's hits in the window by status class."""
        found: dict[StatusClass, int] = {}
        for hundreds, count in self.by_status.items():
            status_class = StatusClass.of(hundreds * 100)
            found[status_class] = found.get(status_class, 0) + count
        return found

    def saw_time(self, seconds: int) -> None:
        """A line's time, for the span the logs cover."""
        if self.first_s is None or seconds < self.first_s:
            self.first_s = seconds
        if self.last_s is None or seconds > self.last_s:
            self.last_s = seconds

    def spoofed(self, address: bytes) -> None:
        text = address.decode("ascii", "replace")
        if text in self.spoofers or len(self.spoofers) < MAX_SPOOFERS:
            self.spoofers[text] += 1
        else:
            self.spoofers_uncounted += 1
