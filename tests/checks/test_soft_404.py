"""A title that says the page was not found: the soft-404 signal, and the titles that only
mention the words (real pages' titles, each with the site name as the site writes it)."""

from __future__ import annotations

import pytest

from auditor.checks import page_head
from auditor.checks.page_head import read_head
from auditor.checks.soft_404 import says_not_found


@pytest.mark.parametrize(
    "title",
    [
        "404 Not Found",  # nginx, Apache
        "Error 404 (Not Found)!!1",  # Google's own
        "Page not found \u2013 My Blog",  # WordPress themes
        "Oops! That page can\u2019t be found. \u2013 My Blog",
        "404 Page not found",  # Hugo
        "Page Not Found | Shop",
        "404 - File or directory not found.",  # IIS
        "404 | Acme",
        "Sorry, we couldn't find that page",
        "The page you were looking for could not be found",
        "This page doesn't exist | Docs",
        "Seite nicht gefunden - Firma",
        "Page introuvable | Site",
        "Erreur 404 - Page non trouvée",
        "Página no encontrada",
        "Página não encontrada | Loja",
        "Pagina non trovata",
        "Pagina niet gevonden",
        "Nie znaleziono strony",
        "Sayfa bulunamad\u0131",
        "Страница не найдена",
        "ページが見つかりません | サイト",
        "页面未找到",
        "페이지를 찾을 수 없습니다",
    ],
)
def test_a_not_found_title(title: str) -> None:
    assert says_not_found(title)
    # The page head's shortcut looks for these words before it parses a head: each phrasing
    # holds one, whatever its case.
    for written in (title, title.upper(), title.lower(), title.title()):
        assert page_head._TITLE_WORDS.search(written.encode().lower()) is not None, written


@pytest.mark.parametrize(
    "title",
    [
        "HTTP 404 Not Found - MDN Web Docs",  # a page about the status
        "404 Not Found error: What it is and how to fix it",
        "How to Fix the 'Page Not Found' Error in WordPress",
        "Page Not Found Errors: How to Fix Them - Yoast",
        "File Not Found Error in Python: FileNotFoundError Explained",
        "Lost and Found - Transport for London",
        "Lost & Found | Property Office",
        "Found Objects Gallery",
        "Not Found (2015) - IMDb",
        "Why Is My Dog Not Found? | PetFinder",
        "404 ways to cook rice",
        "The 404 Club - Music",
        "Route 404 road trip",
        "Nicht gefunden? Unsere Suche hilft",
        "Error handling in Python",
        "",
    ],
)
def test_a_title_that_only_mentions_the_words(title: str) -> None:
    assert not says_not_found(title)


def test_the_head_judges_its_first_title() -> None:
    head = b"<html><head><title>Page not found</title><title>Second</title></head>"
    assert read_head(head, frozenset({"googlebot"})).not_found_title == "Page not found"
    later = b"<html><head><title>Shoes</title><title>Page not found</title></head>"
    assert read_head(later, frozenset({"googlebot"})).not_found_title is None
