"""What the user asked to audit: a site root, a robots.txt, a sitemap URL, or a local file.

Pure: no I/O (whether a path is a file is asked of the caller's `is_file`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from urllib.parse import unquote, urlsplit

from auditor.config import Target, TargetKind
from auditor.errors import TargetError
from auditor.urls import dns_name_problem, parse_http_url, redact_userinfo, split_userinfo

# `host:port` with no scheme: a port says nothing of TLS but for the two well-known ones (RFC 9110
# §4.2.1, §4.2.2: 80 is http's, 443 https's); any other is asked, never guessed.
_BARE_PORT = re.compile(
    r"(?:[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*|\[[0-9A-Fa-f:.]+\]):(\d{1,5})(?:/\S*)?"
)
_PORT_SCHEMES = {80: "http", 443: "https"}
_HOST_LIKE = re.compile(r"[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+(?::\d+)?(?:/\S*)?")
# What a sitemap file is called (sitemaps.org: XML, gzipped XML, text): never a host name, as no
# top-level domain is named xml, gz or txt; "sitemap.xml" is a file that is not there
# (docs/explanation/rules.md#unreached).
_FILE_NAME = re.compile(r"[^/:]+\.(?:xml|xml\.gz|txt)", re.IGNORECASE)


def parse_target(text: str, *, is_file: Callable[[Path], bool]) -> Target:
    """Classify one TARGET argument (docs/reference/options.md)."""
    target = _classify(text, is_file=is_file)
    # An argument with bytes that are not UTF-8 (a file name) keeps its path; it is shown with
    # U+FFFD in their place.
    shown = text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    return replace(target, input=shown) if shown != text else target


def _classify(text: str, *, is_file: Callable[[Path], bool]) -> Target:
    lowered = text.lower()
    if lowered.startswith(("http://", "https://")):
        return _url_target(text, text)
    if lowered.startswith("file://"):
        return _file_target(text, Path(unquote(urlsplit(text).path)), is_file=is_file)
    path = Path(text)
    if is_file(path):
        return _file_target(text, path, is_file=is_file)
    if _FILE_NAME.fullmatch(text.split("/", 1)[0]):
        raise TargetError(f"{text!r}: no such file (a URL starts with https://)")
    if (bare := _BARE_PORT.fullmatch(text)) is not None:
        scheme = _PORT_SCHEMES.get(int(bare[1]))
        if scheme is None:
            raise TargetError(f"{text!r} has no scheme: did you mean http://{text} (or https://)?")
        return _url_target(text, f"{scheme}://{text}")
    if _HOST_LIKE.fullmatch(text):  # "example.com" means its https site
        return _url_target(text, f"https://{text}")
    shown = redact_userinfo(text)
    raise TargetError(f"{shown!r} is neither an http(s) URL nor an existing file")


def _url_target(text: str, url: str) -> Target:
    """A URL target; its userinfo kept apart (Target.userinfo), never in its URL or shown."""
    url, userinfo = split_userinfo(url)
    parsed = parse_http_url(url)
    if parsed is None:
        raise TargetError(f"{redact_userinfo(text)!r} is not a valid http(s) URL")
    problem = dns_name_problem(parsed.host)
    if problem is not None:
        raise TargetError(f"{redact_userinfo(text)!r}: its host can never resolve ({problem})")
    path = parsed.path or "/"
    if path.endswith("/") and not parsed.query:
        return Target(text, TargetKind.SITE, f"{parsed.origin}{path}", userinfo=userinfo)
    kind = TargetKind.ROBOTS if path.endswith("/robots.txt") else TargetKind.SITEMAP
    return Target(text, kind, url, userinfo=userinfo)


def _file_target(text: str, path: Path, *, is_file: Callable[[Path], bool]) -> Target:
    if not is_file(path):
        raise TargetError(f"{text!r}: no such file")
    path = path.absolute()
    kind = TargetKind.ROBOTS if path.name == "robots.txt" else TargetKind.SITEMAP
    return Target(text, kind, path.as_uri(), path)
