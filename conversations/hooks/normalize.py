"""Text normalization for matching: one canonical form so obfuscation cannot dodge the crisis check.

The output is for pattern matching only. It loses accents, case, apostrophes and leetspeak, so it
is never shown to a user or stored in place of their message.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Final

__all__ = ["MAX_CHARS", "clean", "normalize"]

# Past this length the tail is not scanned, so a pasted wall of text cannot stall the ingress hooks
# (matching is linear, about 5 microseconds a character). Channels cap messages far below it.
MAX_CHARS: Final = 100_000

_LONE_SURROGATES: Final = re.compile("[\ud800-\udfff]")
# Format characters (zero-width spaces, bidi marks, BOM, soft hyphen, ...) render as nothing and
# are the usual way to split a keyword or a number without changing how it looks.
_INVISIBLE: Final = re.compile(
    "[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b\u200c\u200e\u200f"
    "\u202a-\u202e\u2060-\u206f\u3164\ufeff\uffa0]"
    # A zero-width joiner belongs inside emoji sequences; next to a letter or digit it is a trick.
    r"|(?<=\w)\u200d|\u200d(?=\w)"
)
# Emoji joiners and variation selectors matter for display, not for matching.
_EMOJI_FORMAT: Final = re.compile("[\u200d\ufe00-\ufe0f]")
_HOMOGLYPHS: Final = str.maketrans(
    # Cyrillic and Greek letters that look Latin, then curly quotes and dashes; escaped because in
    # source they would look exactly like the ASCII they fold to.
    "\u0430\u0432\u0435\u0451\u043a\u043c\u043d\u043e\u0440\u0441\u0442\u0443\u0445\u0455\u0456\u0457\u0458\u0501\u04cf\u04bb\u051b\u051d\u0261\u0131"
    "\u03b1\u03b2\u03b5\u03b7\u03b9\u03ba\u03bd\u03bf\u03c1\u03c4\u03c5\u03c7\u03c9\u03c2\u2113\u2018\u2019\u02bc`\u00b4\u201c\u201d\u2010\u2011\u2012\u2013\u2014\u2015",
    "abeekmhopctyxsiijdlhqwgiabenikvoptuxwsl'''''\"\"------",
)
_COMBINING: Final = re.compile(r"[\u0300-\u036f]")
# "od'd" / "o.d.'d" would fold to the English word "odd"; keep the overdose meaning instead.
_OD: Final = re.compile(r"\bo\.?d\.?(?:'(d|ing|s)|(ing|ed))\b")
# A word that mixes letters with look-alike digits/symbols ("k1ll", "mys3lf", "$uicide").
_LEET_TOKEN: Final = re.compile(r"(?<![\w@$])(?=[\w@$]*[a-z])(?=[\w@$]*[013457@$])[\w@$]+(?![\w@$])")
# Ordinals, times and sizes keep their digits: "1st", "5pm" and "10k" are not leetspeak.
_NOT_LEET: Final = re.compile(r"\d+(?:st|nd|rd|th|am|pm|k|s|x|yrs?|hrs?|mg|lbs?)|[a-z]+\d+|\d+[a-z]?")
_LEET: Final = str.maketrans({"0": "o", "1": "i", "3": "e", "4": "a", "5": "s", "7": "t", "@": "a", "$": "s"})
# Three or more single characters split by spaces/dots/dashes: "s u i c i d e", "k.i.l.l".
_SPACED_LETTERS: Final = re.compile(r"(?<![\w@$])(?:[a-z0-9@$][ .\-_*]{1,2}){2,}[a-z0-9@$](?![\w@$])")
_SPACED_SEP: Final = re.compile(r"[ .\-_*]")
# A letter repeated three or more times is emphasis ("pleeease", "diiiie"), never spelling.
_REPEATS: Final = re.compile(r"([a-z])\1{2,}")
_WHITESPACE: Final = re.compile(r"\s+")


def clean(text: object, limit: int | None = MAX_CHARS) -> str:
    """Return `text` as a storable str: no lone surrogates, no invisible characters, at most `limit` chars."""
    if not isinstance(text, str):
        text = "" if text is None else str(text)
    if limit is not None:
        text = text[:limit]
    text = _LONE_SURROGATES.sub("\ufffd", text)
    return _INVISIBLE.sub("", text)


def _od(match: re.Match[str]) -> str:
    suffix = match.group(1) or match.group(2)
    return {"d": "oded", "ed": "oded", "ing": "oding", "s": "ods"}[suffix]


def _unleet(match: re.Match[str]) -> str:
    token = match.group(0)
    if _NOT_LEET.fullmatch(token):
        return token
    return token.translate(_LEET)


def _join_spaced(match: re.Match[str]) -> str:
    return _SPACED_SEP.sub("", match.group(0))


def normalize(text: object) -> str:
    """Fold `text` to lowercase ASCII-ish words so typos, homoglyphs and spacing tricks still match.

    Never raises: any input (None, bytes-like repr, lone surrogates, 20k chars) yields a str.
    """
    text = clean(text)
    if not text:
        return ""
    text = unicodedata.normalize("NFKC", text).translate(_HOMOGLYPHS)
    # Map homoglyphs again after casefold and accent stripping: the table holds bare lowercase look-alikes, so capitals
    # ("KILL" typed with Greek capitals) slipped past the first pass (found by the reliability fuzzers).
    text = _COMBINING.sub("", unicodedata.normalize("NFKD", text.casefold())).translate(_HOMOGLYPHS)
    # Whitespace is folded before spaced letters are joined: "s u i c i d\te" must join too.
    text = _WHITESPACE.sub(" ", text)
    text = _OD.sub(_od, _EMOJI_FORMAT.sub("", text)).replace("'", "")
    text = _SPACED_LETTERS.sub(_join_spaced, text)
    text = _LEET_TOKEN.sub(_unleet, text)
    text = _REPEATS.sub(r"\1", text)
    return _WHITESPACE.sub(" ", text).strip()
