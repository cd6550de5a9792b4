"""A strong soft-404 signal on a page that answers 200: its title says it was not found.

Google (Search Central, "Soft 404 errors"): a page that tells the user it does not exist while
answering 200 is a soft 404; list only real pages. The title is judged by its parts (split at
the separators sites put between a page's name and their own): a part that is a not-found
phrasing of one of the major languages, whole, is the signal; a title that only mentions the
words ("How to fix 'Page not found' errors") is not (docs/explanation/rules.md#soft-404).
Pure: no I/O.
"""

from __future__ import annotations

import re

# Typographic apostrophes and dashes, read as their ASCII forms.
_TYPOGRAPHIC = str.maketrans({"\u2018": "'", "\u2019": "'", "\u2013": "-", "\u2014": "-"})
# A title's parts: "Page not found | Shop", "404 - Not Found", "Oops! That page can't be found."
_SEPARATORS = re.compile(r"\s+[|:/\u00b7\u2022\u00bb-]\s+|\s*[|\u00b7\u2022\u00bb]\s*|::")
_AROUND = " \t\n\r\f\v.!?'\"()[]\u00a1\u00bf\u2026\u00ab\u00bb\u201c\u201d"
# Whole parts, lower case, whitespace folded, the punctuation around them stripped.
_PHRASES = (
    # English
    r"(?:error )?404(?: error)?(?: page)?",
    r"(?:error )?404 \(not found\)(?:!+1*)?",  # Google's own: "Error 404 (Not Found)!!1"
    r"(?:sorry[!,]? )?we (?:couldn't|could not|can't|cannot) find (?:that|this|the) page",
    r"(?:error )?(?:404 )?(?:page |file )?not found",
    (
        r"(?:oops[!,]? )?(?:the |this |that )?page (?:you (?:requested|were looking for|are "
        r"looking for) )?(?:was not|could not be|cannot be|can't be|couldn't be|wasn't) found"
    ),
    r"(?:sorry[!,]? )?(?:the |this |that )?page (?:does not|doesn't) exist",
    # German, French, Spanish, Portuguese, Italian, Dutch, Polish, Turkish, Russian
    r"fehler 404|seite nicht gefunden|die seite wurde nicht gefunden",
    r"erreur 404|page (?:non trouv\u00e9e|introuvable|non trouvee)",
    r"error 404|p\u00e1gina no encontrada|pagina no encontrada",
    r"erro 404|p\u00e1gina n\u00e3o encontrada|pagina nao encontrada",
    r"errore 404|pagina non trovata",
    r"fout 404|pagina niet gevonden",
    r"b\u0142\u0105d 404|nie znaleziono strony|strona nie zosta\u0142a znaleziona",
    r"hata 404|sayfa bulunamad\u0131",
    "\u043e\u0448\u0438\u0431\u043a\u0430 404",  # Russian: oshibka 404
    (  # stranitsa ne naidena
        "\u0441\u0442\u0440\u0430\u043d\u0438\u0446\u0430 \u043d\u0435 "
        "\u043d\u0430\u0439\u0434\u0435\u043d\u0430"
    ),
)
_PARTS = re.compile("|".join(f"(?:{phrase})" for phrase in _PHRASES))
# Languages written without spaces between words: the phrase anywhere in the title.
_INSIDE = (
    "ページが見つかりません",  # Japanese
    "ページは見つかりませんでした",
    "页面未找到",  # Chinese
    "找不到页面",
    "页面不存在",
    "找不到網頁",
    "頁面不存在",
    "페이지를 찾을 수 없습니다",  # Korean
)
# What a head must hold for a title to be judged at all (auditor.checks.page_head's shortcut),
# lower-cased as bytes.lower() leaves them: a piece of every phrasing above.
HEAD_WORDS = (
    b"404",
    b"found",
    b"find",
    b"exist",
    b"gefunden",
    b"trouv",
    b"introuvable",
    b"encontrad",
    b"trovata",
    b"gevonden",
    b"znalez",
    b"bulunamad",
    "айден".encode(),  # Russian "naidena", its first letter in either case
    "АЙДЕН".encode(),
    "見つかりません".encode(),
    "未找到".encode(),
    "不存在".encode(),
    "找不到".encode(),
    "찾을 수 없습니다".encode(),
)


def says_not_found(title: str) -> bool:
    """Whether a page's title says that the page was not found."""
    text = " ".join(title.translate(_TYPOGRAPHIC).split()).lower()
    if not text:
        return False
    if any(phrase in text for phrase in _INSIDE):
        return True
    return any(
        _PARTS.fullmatch(part.strip(_AROUND)) is not None for part in _SEPARATORS.split(text)
    )
