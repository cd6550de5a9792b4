"""hreflang in a sitemap entry: each `<xhtml:link>` judged, and the cluster it declares.

Google Search Central, "Tell Google about localized versions of your page" (sitemap method):
each `<url>` lists every language version, itself included, as `<xhtml:link rel="alternate"
hreflang="..." href="..."/>`; hrefs are fully qualified and may be on other hosts; values are an
ISO 639-1 language, optionally an ISO 15924 script and an ISO 3166-1 alpha-2 region, or
`x-default`. Case does not matter (RFC 5646 §2.1.1). Return links are judged run-wide
(auditor.wings.hreflang.link_store). Pure: no I/O.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import NamedTuple

from auditor.codes import Code
from auditor.models import Finding, finding
from auditor.sitemap.extensions.iso_codes import (
    ISO_639_1,
    ISO_639_1_WITHDRAWN,
    ISO_3166_1,
    ISO_3166_1_RESERVED,
    ISO_15924,
)
from auditor.sitemap.parse.events import Alternate
from auditor.urls import HttpUrl, digest64, parse_known

X_DEFAULT = "x-default"
_KEY_MASK = (1 << 64) - 1
# language[-script][-region]: the shapes hreflang takes (BCP 47's subset Google reads).
_TAG = re.compile(r"([A-Za-z]{2,3})(?:-([A-Za-z]{4}))?(?:-([A-Za-z]{2}|[0-9]{3}))?")
# What makes `uk` (Ukrainian) look meant for the United Kingdom: a British host or path.
_BRITISH = re.compile(r"\.uk$|^uk\.|^gb\.", re.IGNORECASE)
_BRITISH_PATH = re.compile(r"/(?:uk|gb|en-gb|en_gb)(?:/|$)", re.IGNORECASE)
_SHOWN_CHARS = 200


class HreflangLink(NamedTuple):
    """One alternate a cluster names: its language (folded) and its URL, normalised."""

    hreflang: str  # lower case; "x-default" for the fallback
    digest: int  # of the href's normalised form (auditor.urls.url_digest)
    href: str


class Cluster(NamedTuple):
    """What one entry says of its language versions: its own languages and the links it names.

    A page may be named under several values: `x-default` beside `en`, or the generic `en`
    beside `en-ie` (Google: the generic page "can be one of the specific pages"); all are its
    own (docs/explanation/rules.md#hreflang). A NamedTuple: one per URL crosses from a parse
    helper, and a frozen dataclass with slots unpickles field by field
    (dataclasses._dataclass_setstate), four times slower.
    """

    own: tuple[str, ...]  # the hreflang values naming the entry itself; (): it lists not itself
    links: tuple[HreflangLink, ...]  # every valid link, itself included
    key: int  # the same for every entry naming the same links, in any order (cluster_key)


def cluster_key(links: tuple[HreflangLink, ...]) -> int:
    """An unsigned 64-bit key of a set of (language, URL) links, the same in every process.

    The sum of each link's own hash: the order the links are written in does not matter.
    """
    total = 0
    for link in links:
        total += digest64(f"{link.hreflang}\0{link.digest}".encode())
    return total & _KEY_MASK


@functools.lru_cache(maxsize=1024)
def judge_code(value: str) -> tuple[Code, str] | None:
    """What is wrong with an hreflang value (the code and why), or None when Google reads it."""
    if value.lower() == X_DEFAULT:
        return None
    match = _TAG.fullmatch(value)
    if match is None:
        return Code.HREFLANG_INVALID_CODE, "not language[-script][-region] (separated by -)"
    return _language_problem(match[1].lower()) or _subtag_problem(match[2], match[3])


def _language_problem(language: str) -> tuple[Code, str] | None:
    """Google: "The first code ... is the language code (in ISO 639-1 format)"."""
    if len(language) == 3:
        return Code.HREFLANG_UNSUPPORTED_CODE, "a three-letter language: Google reads ISO 639-1"
    if language in ISO_639_1:
        return None
    if language in ISO_639_1_WITHDRAWN:
        return Code.HREFLANG_UNSUPPORTED_CODE, f"withdrawn: {ISO_639_1_WITHDRAWN[language]}"
    if language.upper() in ISO_3166_1 | ISO_3166_1_RESERVED:  # jp, gb, us: "region alone"
        return Code.HREFLANG_INVALID_CODE, "a region alone: the first code is the language"
    return Code.HREFLANG_INVALID_CODE, "no such ISO 639-1 language"


def _subtag_problem(script: str | None, region: str | None) -> tuple[Code, str] | None:
    """ISO 15924 scripts, ISO 3166-1 alpha-2 regions; "reserved" ones Google ignores."""
    if script is not None and script.title() not in ISO_15924:
        return Code.HREFLANG_UNSUPPORTED_CODE, "no such ISO 15924 script"
    if region is None:
        return None
    if region.isdigit():  # es-419: "other codes ... such as es-419, aren't supported"
        return Code.HREFLANG_UNSUPPORTED_CODE, "a UN M.49 region: Google reads ISO 3166-1"
    if region.upper() in ISO_3166_1_RESERVED:  # en-UK: "Search ignores that part"
        return Code.HREFLANG_UNSUPPORTED_CODE, "a reserved region: Google ignores it"
    if region.upper() not in ISO_3166_1:
        return Code.HREFLANG_INVALID_CODE, "no such ISO 3166-1 region"
    return None


def read_alternates(
    alternates: tuple[Alternate, ...], *, loc: str, own_digest: int | None, sitemap: str
) -> tuple[list[Finding], Cluster | None]:
    """Each alternate of one entry judged; the cluster it declares (None: no valid link).

    `own_digest`: the entry's normalised URL's digest (None when its loc does not parse).
    Every page of a cluster names the same alternates: their judgement is kept for the next.
    """
    judged = _judged.get(alternates)
    if judged is None:
        if len(_judged) >= _JUDGED_KEPT:
            _judged.clear()
        judged = _judged[alternates] = _judge(alternates)
    found = [finding(code, url=loc, sitemap=sitemap, **detail) for code, detail in judged.said]
    if not judged.links:
        return found, None
    own = judged.languages.get(own_digest, ()) if own_digest is not None else ()
    if not own:
        found.append(finding(Code.HREFLANG_MISSING_SELF, url=loc, sitemap=sitemap))
    return found, Cluster(own, judged.links, judged.key)


@dataclass(frozen=True, slots=True)
class _Judged:
    """What a set of alternates says, whichever page names it."""

    links: tuple[HreflangLink, ...]  # the first valid link for each language
    key: int  # cluster_key(links)
    languages: dict[int, tuple[str, ...]]  # digest -> every language naming it, in order
    said: tuple[tuple[Code, dict[str, str]], ...]  # each problem once per value


_JUDGED_KEPT = 1024
_judged: dict[tuple[Alternate, ...], _Judged] = {}


def _judge(alternates: tuple[Alternate, ...]) -> _Judged:
    said = _Said()
    links: dict[str, HreflangLink] = {}  # folded hreflang -> the first link named for it
    for alternate in alternates:
        link = said.link(alternate)
        if link is None:
            continue
        first = links.setdefault(link.hreflang, link)
        if first.digest != link.digest:
            said.say(Code.HREFLANG_DUPLICATE_LANGUAGE, link.hreflang, hreflang=link.hreflang)
    languages: dict[int, tuple[str, ...]] = {}
    for link in links.values():
        languages[link.digest] = (*languages.get(link.digest, ()), link.hreflang)
    kept = tuple(links.values())
    return _Judged(kept, cluster_key(kept), languages, tuple(said.found))


class _Said:
    """The problems of a set of alternates: each said once per value."""

    def __init__(self) -> None:
        self._said: set[tuple[Code, str]] = set()
        self.found: list[tuple[Code, dict[str, str]]] = []

    def say(self, code: Code, value: str, **detail: str) -> None:
        if (code, value) not in self._said:
            self._said.add((code, value))
            self.found.append((code, detail))

    def link(self, alternate: Alternate) -> HreflangLink | None:
        """The link an alternate names, or None (said why) when it cannot count."""
        rel, value, href = alternate.rel, alternate.hreflang, alternate.href
        if rel is not None and rel.strip().lower() != "alternate":
            self.say(Code.HREFLANG_NOT_ALTERNATE, rel, rel=rel[:_SHOWN_CHARS])
            return None
        parsed = parse_known(href) if href else None
        if not value or href is None or parsed is None:
            shown = (href or "")[:_SHOWN_CHARS]
            self.say(
                Code.HREFLANG_HREF_INVALID, f"{value}|{shown}", hreflang=value or "", href=shown
            )
            return None
        problem = judge_code(value)
        if problem is not None:
            self.say(problem[0], value, hreflang=value[:_SHOWN_CHARS], reason=problem[1])
            if problem[0] is Code.HREFLANG_INVALID_CODE:
                return None
        if value.lower() == "uk" and _looks_british(parsed[0]):
            self.say(Code.HREFLANG_AMBIGUOUS_CODE, value, hreflang=value, href=href[:_SHOWN_CHARS])
        return HreflangLink(value.lower(), parsed[1], href)


def _looks_british(url: HttpUrl) -> bool:
    return bool(_BRITISH.search(url.host) or _BRITISH_PATH.search(url.path))
