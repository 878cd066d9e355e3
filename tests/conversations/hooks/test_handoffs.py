"""Handoffs: the right line per category, in both languages, short enough for SMS."""

from __future__ import annotations

import dataclasses
import json

import pytest

from conversations.hooks import handoff_for
from conversations.hooks.crisis import CRISIS_CATEGORIES
from conversations.hooks.handoffs import HANDOFF_CATEGORIES
from vocab.gsm7 import segment_info

ALL = [(category, language) for category in HANDOFF_CATEGORIES for language in ("en", "es")]


def test_every_crisis_category_and_workflow_handoff_exists() -> None:
    assert set(CRISIS_CATEGORIES) | {"legal_aid", "out_of_state", "uncertain", "bound_breach"} == set(
        HANDOFF_CATEGORIES
    )


@pytest.mark.parametrize(("category", "language"), ALL)
def test_each_handoff_fits_two_sms_segments(category: str, language: str) -> None:
    handoff = handoff_for(category, language)
    assert handoff.category == category
    assert handoff.language == language
    assert len(handoff.text) <= 320
    assert handoff.lines
    if language == "en":
        assert _segments(handoff.text) <= 2  # GSM-7: no curly quotes or dashes sneaking in


@pytest.mark.parametrize(
    ("category", "must_say"),
    [
        ("suicide_self_harm", ["988", "911"]),
        ("domestic_violence", ["1-800-799-7233", "START", "88788", "911"]),
        ("medical_emergency_overdose", ["911", "1-800-222-1222"]),
        ("immediate_danger", ["911"]),
        ("sexual_assault", ["1-800-656-4673", "911"]),
        ("housing_emergency", ["2-1-1"]),
        ("legal_aid", ["TexasLawHelp.org", "Lone Star Legal Aid", "Texas RioGrande Legal Aid"]),
        ("out_of_state", ["Texas only", "2-1-1"]),
        ("uncertain", ["not certain", "2-1-1"]),
        ("bound_breach", ["2-1-1", "911"]),
    ],
)
def test_each_handoff_names_its_line_in_both_languages(category: str, must_say: list[str]) -> None:
    for language in ("en", "es"):
        text = handoff_for(category, language).text
        for needle in must_say:
            if language == "es" and needle in ("Texas only", "not certain"):
                continue
            assert needle in text, (category, language, needle)


@pytest.mark.parametrize(("category", "language"), ALL)
def test_handoffs_do_not_moralize(category: str, language: str) -> None:
    text = handoff_for(category, language).text.lower()
    for phrase in (
        "you should",
        "you must",
        "shouldn't have",
        "bad choice",
        "was your fault",
        "is your fault",
        "deberías",
        "debes",
    ):
        assert phrase not in text


def test_unknown_category_or_language_fails_safe() -> None:
    assert handoff_for("none", "en").category == "uncertain"
    assert handoff_for("made_up", "fr").language == "en"
    assert handoff_for("gated", "es").category == "uncertain"
    assert handoff_for("bound", "en").category == "bound_breach"


def test_handoffs_are_frozen_and_their_lines_serialize_to_json() -> None:
    handoff = handoff_for("domestic_violence", "en")
    with pytest.raises(dataclasses.FrozenInstanceError):
        handoff.text = "changed"  # type: ignore[misc]
    lines = json.loads(json.dumps([list(line) for line in handoff.lines]))
    assert lines[0][:3] == ["National Domestic Violence Hotline", "1-800-799-7233", "Text START to 88788"]


def test_gsm7_segments_counts_like_a_carrier() -> None:
    assert _segments("a" * 160) == 1
    assert _segments("a" * 161) == 2
    assert _segments("a" * 306) == 2
    assert _segments("á" * 70) == 1  # UCS-2
    assert _segments("á" * 71) == 2


def test_gsm7_segments_never_lets_an_escape_pair_straddle_two_parts() -> None:
    """306 septets divide into two parts of 153, but "€" (escape + code) cannot start at septet 153: three parts.
    The handoffs' old copy of the arithmetic divided and said two."""
    assert _segments("a" * 152 + "€" + "a" * 152) == 3
    assert _segments("a" * 151 + "€" + "a" * 153) == 2  # the pair fits at 152-153


def _segments(text: str) -> int:
    return segment_info(text).segments
