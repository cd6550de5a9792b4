"""When a log line was written, as Unix seconds (UTC). Pure: no I/O.

Apache's and nginx's `%t` / `$time_local` (`10/Oct/2000:13:55:36 -0700`), ISO 8601
(`$time_iso8601`, most JSON logs) and Unix time in seconds or milliseconds (`$msec`, Caddy's
`ts`). A time that is none of these, or names a day that does not exist, is None: the line is
a bad line, never guessed.
"""

from __future__ import annotations

import math
from datetime import datetime, timedelta, timezone

_MONTHS = {
    name: number
    for number, name in enumerate(
        (
            b"Jan",
            b"Feb",
            b"Mar",
            b"Apr",
            b"May",
            b"Jun",
            b"Jul",
            b"Aug",
            b"Sep",
            b"Oct",
            b"Nov",
            b"Dec",
        ),
        1,
    )
}
_KEPT = 4096  # (day, zone) pairs remembered: a log's lines share a few days and one zone
_MS_FROM = 100_000_000_000  # a Unix time above this is in milliseconds (it is after 5138 in s)
LATEST_S = 2**32 - 1  # a time the tally can keep (unsigned 32-bit seconds: until 2106)


class ClfTimes:
    """Common Log Format times (`DD/Mon/YYYY:HH:MM:SS +ZZZZ`), each hour's start remembered."""

    def __init__(self) -> None:
        self._days: dict[bytes, int | None] = {}
        self._hours: dict[bytes, int] = {}

    def seconds(self, text: bytes) -> int | None:
        """Unix seconds of a `%t` time (without its brackets); None when it is not one."""
        hour = self._hours.get(text[:14] + text[20:])
        if hour is not None and len(text) == 26:
            minute, second = text[15:17], text[18:20]
            if minute.isdigit() and second.isdigit() and minute < b"60" and second <= b"60":
                return hour + int(minute) * 60 + int(second)  # 60: a leap second (ISO 8601)
        found = self._seconds(text)
        if found is not None:
            hours = self._hours
            if len(hours) >= _KEPT:
                hours.clear()
            hours[text[:14] + text[20:]] = found - int(text[15:17]) * 60 - int(text[18:20])
        return found

    def _seconds(self, text: bytes) -> int | None:
        if len(text) != 26:
            return None
        key = text[:11] + text[20:]
        days = self._days
        start = days.get(key, -1)
        if start == -1:
            if len(days) >= _KEPT:
                days.clear()
            start = days[key] = _day_start(text)
        if start is None:
            return None
        try:
            hour, minute, second = int(text[12:14]), int(text[15:17]), int(text[18:20])
        except ValueError:
            return None
        if hour > 23 or minute > 59 or second > 60:  # 60: a leap second (ISO 8601)
            return None
        value = start + hour * 3600 + minute * 60 + second
        return value if 0 <= value <= LATEST_S else None


def _day_start(text: bytes) -> int | None:
    """Unix seconds of the day's midnight in the line's zone; None: no such day or zone."""
    month = _MONTHS.get(text[3:6])
    sign = text[21:22]
    try:
        if month is None or sign not in (b"+", b"-"):
            return None
        offset = int(text[22:24]) * 60 + int(text[24:26])
        if offset >= 24 * 60 or int(text[24:26]) > 59:
            return None
        zone = timezone(timedelta(minutes=-offset if sign == b"-" else offset))
        day = datetime(int(text[7:11]), month, int(text[0:2]), tzinfo=zone)
    except ValueError:
        return None
    return int(day.timestamp())


def json_seconds(value: object, clf: ClfTimes) -> int | None:
    """Unix seconds of a JSON line's time: a number, a numeric string, ISO 8601 or `%t`."""
    number: float | None = None
    match value:
        case bool():
            return None
        case int() | float():
            number = float(value)
        case str():
            try:
                number = float(value)
            except ValueError:
                return _text_seconds(value, clf)
        case _:
            return None
    if math.isnan(number) or number < 0:  # before 1970
        return None
    if number >= _MS_FROM:
        number /= 1000
    seconds = int(number)
    return seconds if seconds <= LATEST_S else None


def _text_seconds(text: str, clf: ClfTimes) -> int | None:
    if len(text) == 26 and text[2:3] == "/":
        return clf.seconds(text.encode("ascii", "replace"))
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        return None
    if moment.tzinfo is None:  # a local time of an unknown zone: never guessed
        return None
    seconds = int(moment.timestamp())
    return seconds if 0 <= seconds <= LATEST_S else None
