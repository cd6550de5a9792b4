"""What image, video and news items share: their children known or not, repeated, deprecated.

Google Search Central ("Video sitemaps"): "Each tag can only be added one time per video, unless
otherwise specified"; news: "Each `url` sitemap tag can have only one `news:news` tag". A child
the extension does not define is `entry.unknown_tag`; one Google dropped, the family's
`deprecated_tag` notice. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable

from auditor.codes import Code
from auditor.models import Finding, finding
from auditor.sitemap.parse.events import MediaItem
from auditor.sitemap.parse.extensions import FOREIGN
from auditor.urls import HttpUrl, parse_http_url

_SHOWN_CHARS = 200


class ItemFindings:
    """The findings of one entry's items of one kind, each said once."""

    def __init__(self, *, loc: str, sitemap: str) -> None:
        self.loc = loc
        self.sitemap = sitemap
        self._said: set[tuple[Code, str]] = set()
        self.found: list[Finding] = []

    def say(self, code: Code, key: str = "", **detail: str | int) -> None:
        """One finding about the entry, once per (code, key)."""
        if (code, key) not in self._said:
            self._said.add((code, key))
            self.found.append(finding(code, url=self.loc, sitemap=self.sitemap, **detail))

    def structure(
        self, item: MediaItem, *, known: Collection[str], deprecated: Collection[str]
    ) -> None:
        """Children and attributes the item should not have: unknown, repeated, deprecated."""
        prefix = f"{item.kind}:"
        for path in item.values:
            name = path.split("/", 1)[0].split("@", 1)[0]
            if path in deprecated or name in deprecated:
                which = path if "@" in path else name  # an attribute, or the whole tag
                self.say(_DEPRECATED[item.kind], which, tag=prefix + which)
            elif name.startswith(FOREIGN) or name not in known:
                tag = name.removeprefix(FOREIGN) if name.startswith(FOREIGN) else prefix + name
                self.say(Code.ENTRY_UNKNOWN_TAG, tag, tag=tag, line=item.line)
        for path in item.repeated:
            if "@" not in path:
                self.say(Code.ENTRY_DUPLICATE_TAG, path, tag=prefix + path, line=item.line)

    def missing(self, item: MediaItem, code: Code, required: Iterable[str]) -> None:
        """The required children an item lacks (empty counts as missing)."""
        for path in required:
            if not item.values.get(path):
                self.say(code, path, tag=f"{item.kind}:{path}", line=item.line)


_DEPRECATED = {
    "image": Code.IMAGE_DEPRECATED_TAG,
    "video": Code.VIDEO_DEPRECATED_TAG,
    "news": Code.NEWS_DEPRECATED_TAG,
}


def absolute(value: str | None, *, schemes: tuple[str, ...] = ("http", "https")) -> HttpUrl | None:
    """An absolute URL of one of `schemes` (ftp only checked for its form), else None."""
    if not value:
        return None
    if "ftp" in schemes and value[:6].lower() == "ftp://" and len(value) > 6:
        return parse_http_url("http://" + value[6:])
    return parse_http_url(value)


def shown(value: str) -> str:
    """A value as a finding shows it."""
    return value[:_SHOWN_CHARS]
