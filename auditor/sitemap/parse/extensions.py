"""The sitemap extensions inside a `<url>`: hreflang links, images, videos, news, as written.

Google Search Central, "Combine sitemap extensions": each extension lives in its namespace,
anywhere after `<loc>`. Elements are matched on their namespace, never on a prefix (Concrete CMS
writes `x:link`). Everything is bounded per entry: values cut at limits.MAX_FIELD_CHARS,
alternates and items past their caps counted, not kept. Judging is auditor.sitemap.extensions'.
Pure: no I/O.
"""

from __future__ import annotations

from auditor.limits import MAX_FIELD_CHARS
from auditor.sitemap.parse.events import Alternate, Extensions, MediaItem

XHTML_NS = "http://www.w3.org/1999/xhtml"
IMAGE_NS = "http://www.google.com/schemas/sitemap-image/1.1"
VIDEO_NS = "http://www.google.com/schemas/sitemap-video/1.1"
NEWS_NS = "http://www.google.com/schemas/sitemap-news/0.9"
FAMILIES = {XHTML_NS: "xhtml", IMAGE_NS: "image", VIDEO_NS: "video", NEWS_NS: "news"}
XHTML_LINK = f"{XHTML_NS}}}link"  # as expat names it: namespace, separator, local name
_ITEMS = {(IMAGE_NS, "image"), (VIDEO_NS, "video"), (NEWS_NS, "news")}
# Kept per entry. Google allows 1,000 images per <url> (all kept, so that each is judged);
# no limit is documented for alternates, and real clusters have a few dozen languages.
MAX_ALTERNATES = 256
MAX_ITEMS = {"image": 1000, "video": 100, "news": 10}
MAX_PATHS = 64  # distinct children kept per item; more are a hostile item, counted as one cut
MAX_UNKNOWN = 16
XML_SPACE = " \t\r\n"
FOREIGN = "?"  # marks, in an item's paths, a child of another namespace


class ExtensionReader:
    """Fed the elements of extension namespaces inside one entry; `take()` at its end."""

    def __init__(self) -> None:
        self._reset()

    def _reset(self) -> None:
        self._alternates: list[Alternate] = []
        self._media: list[MediaItem] = []
        self._counts = {"image": 0, "video": 0, "news": 0}
        self._dropped = 0
        self._links = 0  # every <xhtml:link>, kept or not
        self._unknown: dict[str, None] = {}
        self.open = False  # an extension element of the entry is being read
        self._item: _Item | None = None
        self._item_depth = 0
        self._touched = False  # any extension element met since the last take()

    @staticmethod
    def is_extension(name: str) -> bool:
        """Whether an element (`namespace}local`) belongs to an extension namespace."""
        return name.partition("}")[0] in FAMILIES

    def link(self, attributes: list[str]) -> None:
        """An `<xhtml:link>` child of the entry (the hot path: four or more per entry).

        An empty element: it does not open (whatever it might hold is no field of the entry).
        """
        self._links += 1
        self._touched = True
        if len(self._alternates) >= MAX_ALTERNATES:
            self._dropped += 1
            return
        hreflang = href = rel = None
        for index in range(0, len(attributes), 2):
            key = attributes[index]
            if key == "href":
                href = attributes[index + 1][:MAX_FIELD_CHARS].strip(XML_SPACE)
            elif key == "hreflang":
                hreflang = attributes[index + 1][:MAX_FIELD_CHARS].strip(XML_SPACE)
            elif key == "rel":
                rel = attributes[index + 1][:MAX_FIELD_CHARS].strip(XML_SPACE)
        self._alternates.append(Alternate(hreflang, href, rel))

    def start(self, name: str, attributes: list[str], *, depth: int, line: int) -> None:
        """An element at `depth`: a child of the entry opens an item, deeper ones its children.

        Not `<xhtml:link>`, which the reader gives to `link()`.
        """
        if self.open:
            if self._item is not None:
                self._item.start(name, attributes)
            return
        namespace, _, local = name.partition("}")
        self.open, self._item_depth, self._touched = True, depth, True
        if (namespace, local) in _ITEMS:
            kind = local
            self._counts[kind] += 1
            if self._counts[kind] <= MAX_ITEMS[kind]:
                self._item = _Item(kind, namespace, line)
            else:
                self._dropped += 1
        else:
            self._add_unknown(f"{FAMILIES[namespace]}:{local}")

    def data(self, text: str) -> None:
        """Text inside the open item."""
        if self._item is not None:
            self._item.data(text)

    def end(self, depth: int) -> None:
        """An element ends; the item, when it is the one that opened at the entry's level."""
        if depth > self._item_depth:
            if self._item is not None:
                self._item.end()
            return
        if self._item is not None:
            self._media.append(self._item.finish())
        self.open, self._item = False, None

    def take(self) -> Extensions | None:
        """The entry's extensions (None when it had none); the reader is then reset."""
        if not self._touched:  # most entries: nothing to reset
            return None
        kept = self._alternates or self._media or self._unknown
        if not (kept or self._dropped or any(self._counts.values())):
            return None
        found = Extensions(
            alternates=tuple(self._alternates),
            links=self._links,
            media=tuple(self._media),
            images=self._counts["image"],
            videos=self._counts["video"],
            news=self._counts["news"],
            dropped=self._dropped,
            unknown=tuple(self._unknown)[:MAX_UNKNOWN],
        )
        self._reset()
        return found

    def _add_unknown(self, tag: str) -> None:
        if len(self._unknown) < MAX_UNKNOWN:
            self._unknown[tag] = None


class _Item:
    """One image, video or news item being read: its children's paths, texts and attributes."""

    def __init__(self, kind: str, namespace: str, line: int) -> None:
        self.kind = kind
        self._prefix = f"{namespace}}}"
        self._line = line
        self._path: list[str] = []
        self._values: dict[str, str] = {}
        self._repeated: dict[str, None] = {}
        self._text: list[str] = []
        self._text_chars = 0
        self._tags = 0
        self._cut = False

    def start(self, name: str, attributes: list[str]) -> None:
        local = name.removeprefix(self._prefix)
        if local == name:  # another namespace inside the item: none of this extension's tags
            local = FOREIGN + name.rpartition("}")[2]
        self._path.append(local)
        self._text, self._text_chars = [], 0
        path = "/".join(self._path)
        for key, value in zip(attributes[::2], attributes[1::2], strict=True):
            self._keep(f"{path}@{key}", value)

    def data(self, text: str) -> None:
        room = MAX_FIELD_CHARS - self._text_chars
        self._text_chars += len(text)
        if room > 0:
            self._text.append(text[:room])

    def end(self) -> None:
        path = "/".join(self._path)
        self._path.pop()
        self._cut = self._cut or self._text_chars > MAX_FIELD_CHARS
        if path == "tag":  # video: up to 32 tags, each its own element
            self._tags += 1
        else:
            self._keep(path, "".join(self._text).strip(XML_SPACE))
        self._text, self._text_chars = [], 0

    def _keep(self, path: str, value: str) -> None:
        if path in self._values:
            self._repeated[path] = None
        elif len(self._values) < MAX_PATHS:
            self._values[path] = value[:MAX_FIELD_CHARS]
        else:
            self._cut = True

    def finish(self) -> MediaItem:
        repeated = tuple(self._repeated)[:MAX_PATHS]
        return MediaItem(self.kind, self._line, self._values, repeated, self._tags, self._cut)
