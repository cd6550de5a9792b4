"""The URL configuration of the Django project in tests.sitemap.generated_sites.

Pages under i18n_patterns (/en/about/, /fr/about/, ...), and one sitemap for every language
with `i18n`, `alternates` and `x_default` on: Django writes each page's cluster, x-default
pointing at the default language's URL.
"""

from __future__ import annotations

from django.conf.urls.i18n import i18n_patterns
from django.contrib.sitemaps import Sitemap
from django.contrib.sitemaps.views import sitemap
from django.http import HttpRequest, HttpResponse
from django.urls import URLPattern, URLResolver, path, reverse

PAGES = ("about", "contact")


def page(request: HttpRequest) -> HttpResponse:
    """A page in the request's language."""
    language = request.LANGUAGE_CODE
    body = f'<!doctype html><html lang="{language}"><title>{language}</title><p>A page.</p>'
    return HttpResponse(body, content_type="text/html; charset=utf-8")


class PageSitemap(Sitemap):  # type: ignore[misc]  # django ships no types
    """Every page in every language, each naming its translations."""

    i18n = True
    alternates = True
    x_default = True

    def items(self) -> list[str]:
        return list(PAGES)

    def location(self, item: str) -> str:
        return str(reverse(item))


urlpatterns: list[URLPattern | URLResolver] = [
    path("sitemap.xml", sitemap, {"sitemaps": {"pages": PageSitemap}}),
    *i18n_patterns(*(path(f"{name}/", page, name=name) for name in PAGES)),
]
