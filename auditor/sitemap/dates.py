"""Dates as sitemaps and feeds write them: W3C Datetime, sitemap.xsd's dates, RSS's RFC 822.

Each parser gives the earliest moment a value can mean (a day begins first at UTC+14), so that
"in the future" is said only of what is in the future wherever the site is. Pure: no I/O.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, timezone

# A date without a time (or a time without a zone) starts earliest where the day starts first:
# UTC+14 (Line Islands).
EARLIEST_ZONE = timezone(timedelta(hours=14))

# W3C Datetime (https://www.w3.org/TR/NOTE-datetime): YYYY, YYYY-MM, YYYY-MM-DD, then a time with
# hh:mm, hh:mm:ss or hh:mm:ss.s, which needs a time zone designator.
_W3C = re.compile(
    r"(?P<y>\d{4})(?:-(?P<mo>\d{2})(?:-(?P<d>\d{2})"
    r"(?:T(?P<h>\d{2}):(?P<mi>\d{2})(?::(?P<s>\d{2})(?:\.(?P<f>\d+))?)?"
    r"(?P<tz>Z|[+-]\d{2}:\d{2})?)?)?)?",
    re.ASCII,
)
# The forms sitemaps write (a day; a time to the second with a zone) are parsed by
# datetime.fromisoformat, a few times faster than the general pattern; a test keeps both equal.
# Hours, minutes and seconds in range: what fromisoformat might read otherwise stays W3C's.
_COMMON_W3C = re.compile(
    r"\d{4}-\d{2}-\d{2}(?:T(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d(?:Z|[+-](?:[01]\d|2[0-3]):[0-5]\d))?",
    re.ASCII,
)
# sitemap.xsd: the union of xsd:date and xsd:dateTime, where the zone is optional.
_XSD = re.compile(
    r"(?P<y>\d{4})-(?P<mo>\d{2})-(?P<d>\d{2})"
    r"(?:T(?P<h>\d{2}):(?P<mi>\d{2}):(?P<s>\d{2})(?:\.(?P<f>\d+))?)?(?P<tz>Z|[+-]\d{2}:\d{2})?",
    re.ASCII,
)
_XSD_MAX_ZONE = timedelta(hours=14)  # XML Schema 1.1 §D.2.1: zones from -14:00 to +14:00
# RFC 822 §5 as RSS 2.0 writes it: "Sat, 07 Sep 2002 00:00:01 GMT" (the day name optional).
_RFC822 = re.compile(
    r"(?:[A-Za-z]{3},\s*)?\d{1,2}\s+[A-Za-z]{3}\s+\d{2,4}\s+\d{2}:\d{2}(?::\d{2})?\s+\S+"
)


@dataclass(frozen=True, slots=True)
class Lastmod:
    """A date one of the two grammars accepts: the earliest moment it means, and which accept it.

    docs/explanation/rules.md#lastmod-grammars: a value valid for exactly one of W3C Datetime and
    sitemap.xsd is a notice.
    """

    earliest: datetime
    w3c_valid: bool
    xsd_valid: bool


# Sitemaps repeat their lastmod values (a build date, a day): each is parsed once. The result
# is immutable, so sharing it is safe.
@functools.lru_cache(maxsize=4096)
def parse_lastmod(text: str) -> Lastmod | None:
    """W3C Datetime or sitemap.xsd's date; None when neither grammar accepts the text."""
    if _COMMON_W3C.fullmatch(text):
        try:
            moment = datetime.fromisoformat(text)
        except ValueError:  # February 30...
            return None
        if moment.tzinfo is None:  # a day: it starts earliest at UTC+14
            return Lastmod(moment.replace(tzinfo=EARLIEST_ZONE), w3c_valid=True, xsd_valid=True)
        offset = moment.utcoffset()
        xsd = offset is not None and abs(offset) <= _XSD_MAX_ZONE
        return Lastmod(moment, w3c_valid=True, xsd_valid=xsd)
    parsed = _parse_any_w3c(text)
    if parsed is not None:
        return parsed
    earliest = xsd_earliest(text)
    return None if earliest is None else Lastmod(earliest, w3c_valid=False, xsd_valid=True)


# The two forms nearly every sitemap writes, read with integers alone (no datetime): a day,
# and a time to the second with its zone, hours and minutes in range, the zone within the XSD's
# ±14:00. What they do not match goes to `parse_lastmod`; a test keeps both equal.
_PLAIN_DAY = re.compile(r"(\d{4})-(\d{2})-(\d{2})", re.ASCII)
_PLAIN_TIME = re.compile(
    r"(\d{4})-(\d{2})-(\d{2})T([01]\d|2[0-3]):([0-5]\d):([0-5]\d)"
    r"(?:Z|([+-])(0\d|1[0-3]):([0-5]\d)|([+-])14:00)",
    re.ASCII,
)
_DAY_S = 86_400
_EARLIEST_ZONE_S = 14 * 3600
_MONTH_DAYS = (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


@functools.lru_cache(maxsize=8192)
def plain_lastmod_s(text: str) -> int | None:
    """The earliest moment (Unix seconds) of a lastmod both grammars accept, in a plain form.

    A day (`2024-05-01`: it starts earliest at UTC+14) or a time to the second with its zone
    (`2024-05-01T10:00:00Z`, `...+02:00`). None for anything else, or a day that does not
    exist: `parse_lastmod` then decides (and finds what is wrong).
    """
    if len(text) == 10:
        day = _PLAIN_DAY.fullmatch(text)
        days = _days(int(day[1]), int(day[2]), int(day[3])) if day is not None else None
        return None if days is None else days * _DAY_S - _EARLIEST_ZONE_S
    moment = _PLAIN_TIME.fullmatch(text)
    days = _days(int(moment[1]), int(moment[2]), int(moment[3])) if moment is not None else None
    if moment is None or days is None:
        return None
    seconds = days * _DAY_S + int(moment[4]) * 3600 + int(moment[5]) * 60 + int(moment[6])
    # The local time is ahead of UTC by the zone's offset (Z: none).
    if moment[7] is not None:
        offset = int(moment[8]) * 3600 + int(moment[9]) * 60
        seconds -= offset if moment[7] == "+" else -offset
    elif moment[10] is not None:  # ±14:00
        seconds -= _EARLIEST_ZONE_S if moment[10] == "+" else -_EARLIEST_ZONE_S
    return seconds


def _days(year: int, month: int, day: int) -> int | None:
    """Days since 1970-01-01 of a date of the proleptic Gregorian calendar; None if none.

    Howard Hinnant's days_from_civil ("chrono-Compatible Low-Level Date Algorithms").
    """
    if year < 1 or not 1 <= month <= 12 or day < 1:
        return None
    leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
    if day > (29 if month == 2 and leap else _MONTH_DAYS[month - 1]):
        return None
    year -= month <= 2
    era = year // 400
    of_era = year - era * 400
    of_year = (153 * (month + (-3 if month > 2 else 9)) + 2) // 5 + day - 1
    of_epoch = of_era * 365 + of_era // 4 - of_era // 100 + of_year
    return era * 146_097 + of_epoch - 719_468


def _parse_any_w3c(text: str) -> Lastmod | None:
    """W3C Datetime through the general pattern: every form, every edge."""
    match = _W3C.fullmatch(text)
    if match is None:
        return None
    year, month, day, hour, tz = match.group("y", "mo", "d", "h", "tz")
    if hour is not None and tz is None:
        return None  # W3C: a time needs a time zone designator
    try:
        zone = EARLIEST_ZONE if tz is None else _parse_zone(tz)
        fraction = match["f"] or "0"
        earliest = datetime(
            int(year),
            int(month or 1),
            int(day or 1),
            int(hour or 0),
            int(match["mi"] or 0),
            int(match["s"] or 0),
            int(fraction[:6].ljust(6, "0")),
            tzinfo=zone,
        )
    except ValueError:  # month 13, February 30, hour 24, zone +25:00...
        return None
    # sitemap.xsd also wants seconds with a time, and a zone within ±14:00 (xsd_earliest).
    xsd_valid = day is not None and (hour is None or match["s"] is not None)
    xsd_valid = xsd_valid and abs(zone.utcoffset(None)) <= _XSD_MAX_ZONE
    return Lastmod(earliest, w3c_valid=True, xsd_valid=xsd_valid)


def xsd_earliest(text: str) -> datetime | None:
    """The earliest moment of a value sitemap.xsd (xsd:date or xsd:dateTime) accepts, else None.

    The XSD's zone is optional: a time without one starts earliest at UTC+14.
    """
    match = _XSD.fullmatch(text)
    if match is None:
        return None
    try:
        zone = EARLIEST_ZONE if match["tz"] is None else _parse_zone(match["tz"])
        fields = (int(match[name] or 0) for name in ("y", "mo", "d", "h", "mi", "s"))
        year, month, day, hour, minute, second = fields
        micro = int((match["f"] or "0")[:6].ljust(6, "0"))
        # XML Schema Part 2 (2nd ed.) §3.2.7: 24:00:00 is the end of the day, the next day's
        # 00:00:00; W3C Datetime's hours stop at 23 (_W3C). A notice, not an error
        # (docs/explanation/rules.md#lastmod-grammars).
        end_of_day = hour == 24 and minute == second == micro == 0
        hour = 0 if end_of_day else hour
        moment = datetime(year, month, day, hour, minute, second, micro, tzinfo=zone)
    except ValueError:
        return None
    if end_of_day:
        moment += timedelta(days=1)
    return moment if abs(zone.utcoffset(None)) <= _XSD_MAX_ZONE else None


def parse_rfc822(text: str) -> datetime | None:
    """An RSS 2.0 date (RFC 822, as RSS 2.0's spec says: `pubDate`); None when it is none.

    A zone the parser cannot name (`-0000`) counts as its earliest, UTC+14.
    """
    if not _RFC822.fullmatch(text):
        return None
    # Imported here: few runs read an RSS 2.0 feed, and email costs each parse helper 1.2 MB.
    from email.utils import parsedate_to_datetime  # noqa: PLC0415

    try:
        moment = parsedate_to_datetime(text)
    except (TypeError, ValueError):
        return None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=EARLIEST_ZONE)


def _parse_zone(tz: str) -> timezone:
    if tz == "Z":
        return UTC
    hours, minutes = int(tz[1:3]), int(tz[4:6])
    if minutes > 59:
        raise ValueError(tz)
    offset = timedelta(hours=hours, minutes=minutes)
    return timezone(-offset if tz[0] == "-" else offset)
