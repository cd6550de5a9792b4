"""Image sitemaps: `<image:image>` items of an entry (Google Search Central, "Image sitemaps").

"Each `<url>` tag can contain up to 1,000 `<image:image>` tags"; `<image:loc>` is required, a
fully qualified URL that may be on another host ("as long as you verify both domains in Search
Console"). Caption, title, geo_location and license were deprecated on 2022-05-06 ("no effect
on indexing ... after August 6, 2022"). Pure: no I/O.
"""

from __future__ import annotations

from auditor.codes import Code
from auditor.models import Finding
from auditor.sitemap.extensions.items import ItemFindings, absolute, shown
from auditor.sitemap.parse.events import MediaItem

MAX_IMAGES = 1000
KNOWN = frozenset({"loc"})
DEPRECATED = frozenset({"caption", "title", "geo_location", "license"})


def validate_images(items: list[MediaItem], count: int, *, loc: str, sitemap: str) -> list[Finding]:
    """The rules of one entry's images (`count`: all of them, kept or not)."""
    said = ItemFindings(loc=loc, sitemap=sitemap)
    if count > MAX_IMAGES:
        said.say(Code.IMAGE_TOO_MANY, count=count, limit=MAX_IMAGES)
    for item in items:
        said.structure(item, known=KNOWN, deprecated=DEPRECATED)
        value = item.values.get("loc")
        if not value:
            said.say(Code.IMAGE_LOC_MISSING, line=item.line)
        elif absolute(value) is None:
            said.say(Code.IMAGE_LOC_INVALID, value, image=shown(value), line=item.line)
    return said.found
