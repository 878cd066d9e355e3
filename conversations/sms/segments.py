"""SMS text shaping: GSM-safe punctuation, compact cards and links, what changes the answer, shortening with MORE.

A text has no card under it, so what a web card shows beside a place is written on the place's line:
its live alert ("! Closed through Dec 24") and the documents to bring; a cited rule's caveat gets its
shortened "Note: …" line. Pure functions (no Django), so they are tested directly. The alphabet and
the segment arithmetic (GSM-7 vs UCS-2, parts of 153/67 units, escape and surrogate pairs never
split) live in vocab.gsm7, shared with the crisis handoffs; they are re-exported here for the sender.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from conversations.sms.texts import text_for
from conversations.workflow.templates import NOTE, note_line, shorten
from vocab.gsm7 import SegmentInfo, encoding_of, is_gsm7, segment_info

__all__ = [
    "SegmentInfo",
    "ShapedSms",
    "compact",
    "cut",
    "encoding_of",
    "gsm_safe",
    "place_extra",
    "segment_info",
    "shape",
    "with_note",
    "with_place_extras",
]

# Typographic punctuation that phones and drafts produce, mapped to GSM-7 equivalents.
_PUNCTUATION: Final = {
    "\u2018": "'",
    "\u2019": "'",
    "\u201a": "'",
    "\u201b": "'",
    "\u2032": "'",
    "\u2039": "'",
    "\u203a": "'",
    "\u201c": '"',
    "\u201d": '"',
    "\u201e": '"',
    "\u201f": '"',
    "\u2033": '"',
    "\u00ab": '"',
    "\u00bb": '"',
    "\u2010": "-",
    "\u2011": "-",
    "\u2012": "-",
    "\u2013": "-",
    "\u2014": "-",
    "\u2015": "-",
    "\u2212": "-",
    "\u2026": "...",
    "\u2022": "-",
    "\u00b7": "-",
    "\u25aa": "-",
    "\u25cf": "-",
    "\u2023": "-",
    "\u00a0": " ",
    "\u2007": " ",
    "\u2009": " ",
    "\u202f": " ",
    "\u2002": " ",
    "\u2003": " ",
    "\t": " ",
    "\u00b4": "'",
    "`": "'",
}
_ZERO_WIDTH: Final = frozenset("\u200b\u200c\u200d\u2060\ufeff\ufe0e\ufe0f")
_URL = re.compile(r"https?://\S+")
_SPACES = re.compile(r"[ ]{2,}")
_SPACE_BEFORE_NEWLINE = re.compile(r" +\n")
# Room for what changes the answer on a place's line: the gist of an alert, then whole document names.
ALERT_CHARS: Final = 60
BRING_CHARS: Final = 80


@dataclass(frozen=True)
class ShapedSms:
    text: str
    remainder: str


def _is_emoji_or_symbol(ch: str) -> bool:
    if is_gsm7(ch):
        return False
    code = ord(ch)
    if code > 0xFFFF or 0x2600 <= code <= 0x27BF or 0x2B00 <= code <= 0x2BFF:
        return True
    return unicodedata.category(ch) in ("So", "Cs", "Co")


def gsm_safe(text: str) -> str:
    """Replace typographic punctuation with GSM-7 equivalents and drop emoji; letters are left alone.

    Spanish letters such as á or ó are not in GSM-7, so Spanish text may still need UCS-2: changing
    letters would change words, which a case manager approved as written.
    """
    out: list[str] = []
    for ch in unicodedata.normalize("NFC", text):
        if ch in _ZERO_WIDTH or _is_emoji_or_symbol(ch):
            continue
        out.append(_PUNCTUATION.get(ch, ch))
    cleaned = _SPACE_BEFORE_NEWLINE.sub("\n", _SPACES.sub(" ", "".join(out)))
    return "\n".join(line.strip() for line in cleaned.strip().splitlines()).strip()


def _card_name(line: str, names: Iterable[str]) -> str | None:
    """The place a list line ("- Name, phone…") is about: the longest name it starts with."""
    if not line.lstrip().startswith(("-", "*")):
        return None
    stripped = line.lstrip("-* ").strip()
    return max((n for n in names if n and stripped.startswith(n)), key=len, default=None)


def _documents(documents: Sequence[str], limit: int) -> str:
    """Whole document names while they fit in `limit`; "…" says more are on the card."""
    kept: list[str] = []
    for document in documents:
        if len(", ".join([*kept, document])) > limit:
            break
        kept.append(document)
    if not kept:
        return shorten(documents[0], limit) if documents else ""
    return ", ".join(kept) + (", …" if len(kept) < len(documents) else "")


def place_extra(resource: Mapping[str, Any], *, language: str) -> str:
    """What a place's card adds that changes the trip, in one short GSM-safe phrase: alert, then documents.

    The card's texts are already in the conversation's language (the directory's Spanish fields for a
    Spanish card); only the label comes from here.
    """
    bits = []
    alert = gsm_safe(str(resource.get("alert") or ""))
    if alert:
        gist = gsm_safe(shorten(alert, ALERT_CHARS))
        bits.append(f"! {gist}" + ("" if gist.endswith((".", "!", "?")) else "."))
    documents = [gsm_safe(str(item)) for item in resource.get("documents") or () if str(item).strip()]
    if documents:
        bits.append(f"{text_for('bring', language)} {gsm_safe(_documents(documents, BRING_CHARS))}")
    return " ".join(bits)


def with_place_extras(text: str, *, resources: Sequence[Mapping[str, Any]], language: str) -> str:
    """Append each listed place's alert and documents to its line (once: a line that has them is left)."""
    extras = {str(r.get("name") or "").strip(): place_extra(r, language=language) for r in resources}
    extras = {name: extra for name, extra in extras.items() if name and extra}
    lines = []
    for line in text.splitlines():
        name = _card_name(line, extras)
        if name is not None and extras[name] not in line:
            lines.append(f"{line.rstrip()} {extras[name]}")
        else:
            lines.append(line)
    return "\n".join(lines)


def with_note(text: str, *, citations: Sequence[Mapping[str, Any]], language: str) -> str:
    """Show the first cited entry's caveat as a shortened note, after the last line citing it.

    A reply that has a note already keeps it, except that a caveat written out whole is shortened the
    way the template shortens it (an edited note stays as the case manager wrote it).
    """
    label = NOTE.get(language, NOTE["en"])
    lines = text.splitlines()
    for item in citations:
        caveat, citation = str(item.get("caveat") or "").strip(), gsm_safe(str(item.get("citation") or ""))
        citing = [at for at, line in enumerate(lines) if citation and citation in line]
        if not caveat or not citing:
            continue
        short = gsm_safe(note_line(caveat, language, channel="sms"))
        notes = [at for at, line in enumerate(lines) if line.startswith(label)]
        if not notes:
            lines.insert(citing[-1] + 1, short)
        for at in notes:
            if lines[at] == gsm_safe(f"{label} {caveat}"):
                lines[at] = short
        break
    return "\n".join(lines)


def compact(
    text: str, *, resources: Sequence[Mapping[str, Any]] = (), citations: Sequence[Mapping[str, Any]] = ()
) -> tuple[str, str]:
    """Shorten cards and links: a card line becomes 'Name: phone'; URLs leave the text.

    Returns (compacted text, the one link to keep): the first cited source's URL, or the first URL
    found in the text.
    """
    cards = {
        str(r.get("name") or "").strip(): str(r.get("phone_display") or r.get("phone") or "").strip() for r in resources
    }
    cards.pop("", None)
    lines = []
    for line in text.splitlines():
        name = _card_name(line, cards)
        if name is not None:
            lines.append(f"- {name}: {cards[name]}" if cards[name] else f"- {name}")
        else:
            lines.append(line)
    compacted = "\n".join(lines)
    found = _URL.findall(compacted)
    link = ""
    for item in citations:
        if item.get("url") and item.get("citation") and str(item["citation"]) in compacted:
            link = str(item["url"])
            break
    if not link and found:
        link = found[0].rstrip(".,;)")
    compacted = _URL.sub("", compacted)
    compacted = _SPACES.sub(" ", _SPACE_BEFORE_NEWLINE.sub("\n", compacted))
    compacted = re.sub(r"\(\s*\)|:\s*$", "", compacted, flags=re.MULTILINE)
    return "\n".join(line.rstrip() for line in compacted.splitlines() if line.strip()), link


def cut(text: str, limit: int) -> tuple[str, str]:
    """Split before `limit` characters at a line, sentence or word boundary; never inside a word.

    A single word longer than the limit (nothing else fits) is the only case cut hard.
    """
    text = text.strip()
    if len(text) <= limit:
        return text, ""
    window = text[: limit + 1]
    floor = limit // 3  # prefer a clean break, but not one that wastes most of the message
    for pattern in ("\n", ". ", "? ", "! ", "; ", ", "):
        at = window.rfind(pattern, 0, limit)
        if at >= floor:
            end = at + (1 if pattern != "\n" else 0)
            return text[:end].rstrip(), text[end:].strip()
    at = window.rfind(" ", 0, limit + 1)
    if at > 0:
        return text[:at].rstrip(), text[at:].strip()
    return text[:limit], text[limit:].strip()


def shape(
    text: str,
    *,
    budget: int,
    more_hint: str,
    footer: str = "",
    resources: Sequence[Mapping[str, Any]] = (),
    citations: Sequence[Mapping[str, Any]] = (),
    language: str | None = None,
    note: bool = True,
) -> ShapedSms:
    """Fit a reply into `budget` characters for SMS; the rest is returned as the remainder (sent on MORE).

    `footer` (e.g. the not-legal-advice line) always stays in the first part. With a `language`, each
    listed place carries its alert and documents, and (with `note`) a cited caveat its shortened note;
    they are part of the text, so what does not fit goes to the remainder like any other line.
    """
    body = gsm_safe(text)
    if language is not None and note:
        body = with_note(body, citations=citations, language=language)

    def extras(text: str) -> str:
        return text if language is None else with_place_extras(text, resources=resources, language=language)

    footer = gsm_safe(footer)
    whole = f"{extras(body)}\n{footer}".strip()
    if len(whole) <= budget:
        return ShapedSms(whole, "")
    body, link = compact(body, resources=resources, citations=citations)
    # compact rewrites a place's line to "- Name: phone", so its extras are written after it.
    body = extras(body)
    if len(link) > budget - len(footer) - 1:
        # A link longer than a whole text cannot be sent as one; moved to the rest, it came back with
        # every MORE, which then sent nothing but the hint. The citation itself stays in the text.
        link = ""
    tail = "\n".join(part for part in (link, footer) if part)
    whole = f"{body}\n{tail}".strip()
    if len(whole) <= budget:
        return ShapedSms(whole, "")
    room = budget - len(more_hint) - len(tail) - 2  # the two joins below
    moved = ""
    if room < budget // 3:
        # A long footer or link would squeeze the reply itself to nothing: send them with the rest.
        room, moved, tail = budget - len(more_hint) - 1, tail, ""
    head, rest = cut(body, room)
    if tail:
        head = f"{head}\n{tail}"
    if moved:
        rest = f"{rest}\n{moved}".strip()
    return ShapedSms(f"{head} {more_hint}".strip(), rest)
