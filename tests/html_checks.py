"""What every HTML report must be: only the template's own elements, nothing that runs or loads.

A structural check (html.parser), so an injected `<img onerror=...>` or `<script>` is found
wherever it lands, and a `javascript:` URL can never hide in an href.
"""

from __future__ import annotations

from html.parser import HTMLParser

# Every element the template writes; anything else came from somewhere it should not have.
TEMPLATE_TAGS = frozenset(
    [
        "html",
        "head",
        "meta",
        "title",
        "style",
        "body",
        "header",
        "main",
        "footer",
        "nav",
        "section",
        "div",
        "span",
        "p",
        "b",
        "br",
        "wbr",  # where a URL may break: after its slashes (report.html_writer.breakable)
        "h1",
        "h2",
        "h3",
        "a",
        "code",
        "table",
        "thead",
        "tbody",
        "tr",
        "th",
        "td",
        "details",
        "summary",
        "figure",
        "figcaption",
        "dl",
        "dt",
        "dd",
        "svg",
        "line",
        "rect",
        "circle",
        "ul",
        "li",
        "text",
        "script",
    ]
)
SAFE_HREF_PREFIXES = ("#", "http://", "https://")
FORBIDDEN_ATTRIBUTES = frozenset({"src", "srcdoc", "style", "action", "formaction", "xlink:href"})


class _Inspector(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.problems: list[str] = []
        self.scripts = 0
        self.links: list[str] = []
        self.csp = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag not in TEMPLATE_TAGS:
            self.problems.append(f"unexpected element <{tag}>")
        if tag == "script":
            self.scripts += 1
            if attrs:
                self.problems.append(f"a script with attributes {attrs}")
        for name, value in attrs:
            if name.startswith("on") or name in FORBIDDEN_ATTRIBUTES:
                self.problems.append(f"attribute {name}={value!r} on <{tag}>")
            if name == "href":
                self.links.append(value or "")
                if not (value or "").startswith(SAFE_HREF_PREFIXES):
                    self.problems.append(f"href {value!r}")
        if tag == "meta":
            values = dict(attrs)
            equiv = (values.get("http-equiv") or "").lower()
            if equiv == "content-security-policy":
                self.csp = values.get("content") or ""
            elif equiv:
                self.problems.append(f"meta {attrs}")  # a refresh, a cookie...


def inspect_html(html: str) -> tuple[list[str], list[str]]:
    """(problems, hrefs) of a report; problems is empty for an inert report."""
    inspector = _Inspector()
    inspector.feed(html)
    inspector.close()
    if inspector.scripts != 1:
        inspector.problems.append(f"{inspector.scripts} script elements, not the template's one")
    if not inspector.csp.startswith("default-src 'none';"):
        inspector.problems.append("no Content-Security-Policy forbidding requests")
    return inspector.problems, inspector.links


def assert_inert(html: str) -> None:
    """Fail when the report holds anything but the template's elements and safe links."""
    problems, _links = inspect_html(html)
    assert not problems, problems
