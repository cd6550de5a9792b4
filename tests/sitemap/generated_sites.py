"""Multilingual sites as real generators build them: Hugo (Debian's `hugo`) and Django.

Each builder returns the site's routes for a loopback server whose root URL is `base`, built for
that very URL, as the generator writes them: the auditor reads their bytes unchanged. `drop_link`
removes one `<xhtml:link>` from one entry of a sitemap, the mistake a template edit makes.
"""

from __future__ import annotations

import mimetypes
import re
import shutil
import subprocess
from pathlib import Path

from auditor.demo.documents import Page

LANGUAGES = ("en", "fr", "de")
PAGES = ("about", "contact")  # pages every language has; Hugo adds the home and section lists


def hugo_binary() -> str | None:
    """Debian's hugo, when installed."""
    return shutil.which("hugo")


def hugo_routes(base: str, folder: Path) -> dict[str, Page]:
    """A three-language Hugo site built in `folder` for `base`, every file of `public/` a route.

    Hugo writes one sitemap per language under an index, each entry naming its translations
    (https://gohugo.io/templates/sitemap/); an English-only post has no alternates.
    """
    hugo = hugo_binary()
    assert hugo is not None
    site = folder / "hugo"
    site.mkdir(parents=True, exist_ok=True)
    config = [
        f'baseURL = "{base}/"',
        'title = "Multilingual"',
        'defaultContentLanguage = "en"',
        "defaultContentLanguageInSubdir = true",
        'disableKinds = ["taxonomy", "term", "RSS"]',
    ]
    for weight, language in enumerate(LANGUAGES, start=1):
        config += [f"[languages.{language}]", f"weight = {weight}"]
    (site / "config.toml").write_text("\n".join(config) + "\n")
    layouts = site / "layouts" / "_default"
    layouts.mkdir(parents=True, exist_ok=True)
    page = "<!doctype html><html><head><title>{{ .Title }}</title></head><body>{{ .Content }}"
    for name in ("single", "list"):
        (layouts / f"{name}.html").write_text(page + "</body></html>\n")
    (site / "layouts" / "index.html").write_text(page + "</body></html>\n")
    content = site / "content"
    (content / "posts").mkdir(parents=True, exist_ok=True)
    for language in LANGUAGES:
        (content / f"_index.{language}.md").write_text(f"---\ntitle: Home {language}\n---\n")
        for name in PAGES:
            text = f"---\ntitle: {name} {language}\n---\nA page.\n"
            (content / f"{name}.{language}.md").write_text(text)
        (content / "posts" / f"hello.{language}.md").write_text("---\ntitle: Hello\n---\nHi.\n")
    (content / "posts" / "only.en.md").write_text("---\ntitle: English only\n---\nHi.\n")
    subprocess.run([hugo, "--quiet", "--source", str(site)], check=True, timeout=120)
    return _files_as_routes(site / "public")


def _files_as_routes(public: Path) -> dict[str, Page]:
    routes: dict[str, Page] = {}
    for path in public.rglob("*"):
        if not path.is_file():
            continue
        route = "/" + path.relative_to(public).as_posix()
        kind = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
        page = Page(200, path.read_bytes(), {"Content-Type": kind})
        routes[route] = page
        if path.name == "index.html":
            routes[route.removesuffix("index.html")] = page  # /fr/about/ is its index.html
    return routes


def django_routes(base: str) -> dict[str, Page]:
    """The sitemap and pages of a Django project using the sitemap framework with `i18n`,
    `alternates` and `x_default` (https://docs.djangoproject.com/en/stable/ref/contrib/sitemaps/),
    rendered by Django's own test client for the host of `base`."""
    from django.test import Client  # noqa: PLC0415 - Django only for this test

    _configure_django()
    client = Client(HTTP_HOST=base.removeprefix("http://"))
    paths = ["/sitemap.xml"]
    paths += [f"/{language}/{name}/" for language in LANGUAGES for name in PAGES]
    routes: dict[str, Page] = {}
    for path in paths:
        response = client.get(path)
        assert response.status_code == 200, (path, response.status_code)
        routes[path] = Page(200, response.content, {"Content-Type": response["Content-Type"]})
    return routes


def _configure_django() -> None:
    import django  # noqa: PLC0415
    from django.conf import settings  # noqa: PLC0415

    if settings.configured:
        return
    settings.configure(
        DEBUG=False,
        ALLOWED_HOSTS=["127.0.0.1"],
        ROOT_URLCONF="tests.sitemap.django_urls",
        INSTALLED_APPS=["django.contrib.sitemaps"],
        TEMPLATES=[
            {"BACKEND": "django.template.backends.django.DjangoTemplates", "APP_DIRS": True}
        ],
        USE_I18N=True,
        LANGUAGE_CODE="en",
        LANGUAGES=[(language, language) for language in LANGUAGES],
        MIDDLEWARE=["django.middleware.locale.LocaleMiddleware"],
        SECRET_KEY="tests-only",
    )
    django.setup()


def drop_link(document: bytes, *, entry: str, hreflang: str) -> bytes:
    """`document` without the `<xhtml:link hreflang=...>` of the `<url>` whose loc is `entry`."""
    text = document.decode()
    start = text.index(f"<loc>{entry}</loc>")
    end = text.index("</url>", start)
    link = re.compile(r"<xhtml:link[^>]*?hreflang=\"" + re.escape(hreflang) + r"\"[^>]*?/>", re.S)
    inside, count = link.subn("", text[start:end], count=1)
    assert count == 1, (entry, hreflang)
    return (text[:start] + inside + text[end:]).encode()
