"""GSM-7/UCS-2 detection, segment counts, GSM-safe punctuation and shortening (never mid-word)."""

from __future__ import annotations

import pytest

from conversations.sms.segments import compact, cut, encoding_of, gsm_safe, segment_info, shape

HINT = "(Reply MORE for the rest)"


@pytest.mark.parametrize(
    ("text", "encoding", "segments"),
    [
        ("", "GSM-7", 0),
        ("a" * 160, "GSM-7", 1),
        ("a" * 161, "GSM-7", 2),
        ("a" * 306, "GSM-7", 2),
        ("a" * 307, "GSM-7", 3),
        ("¿Dónde?", "UCS-2", 1),  # ó is not in GSM-7
        ("ñ" * 160, "GSM-7", 1),  # ñ is
        ("á" * 70, "UCS-2", 1),
        ("á" * 71, "UCS-2", 2),
        ("á" * 134, "UCS-2", 2),
        ("á" * 135, "UCS-2", 3),
        ("€" * 80, "GSM-7", 1),  # extension characters take two septets
        ("€" * 81, "GSM-7", 2),
    ],
)
def test_segment_counts_in_both_encodings(text, encoding, segments) -> None:
    info = segment_info(text)
    assert (info.encoding, info.segments) == (encoding, segments)


def test_an_escape_pair_never_straddles_two_parts() -> None:
    text = "a" * 152 + "€" + "a" * 10  # 152 + 2 + 10 = 164 septets; € cannot start at 153
    assert segment_info(text).segments == 2
    assert segment_info("a" * 152 + "€" + "a" * 152).segments == 3


def test_an_emoji_forces_ucs2_and_counts_as_two_units() -> None:
    info = segment_info("ok 👍")
    assert info.encoding == "UCS-2" and info.units == 5


def test_gsm_safe_replaces_typographic_punctuation_and_drops_emoji() -> None:
    text = "It\u2019s \u201cfree\u201d \u2014 call\u2026 now \U0001f642\U0001f44d\u00a0today \u2022 bring ID"
    cleaned = gsm_safe(text)
    assert cleaned == 'It\'s "free" - call... now today - bring ID'
    assert encoding_of(cleaned) == "GSM-7"


def test_gsm_safe_keeps_spanish_letters() -> None:
    assert gsm_safe("¿Cómo está?") == "¿Cómo está?"


def test_cut_never_splits_a_word() -> None:
    text = "alpha beta gamma delta epsilon zeta eta theta"
    for limit in range(6, len(text)):
        head, rest = cut(text, limit)
        assert len(head) <= limit
        assert (head + " " + rest).split() == text.split()


def test_cut_prefers_a_sentence_end() -> None:
    head, rest = cut("First sentence here. Second sentence is longer than the rest.", 40)
    assert head == "First sentence here." and rest.startswith("Second")


def test_cards_become_name_and_phone_and_one_link_stays() -> None:
    text = (
        "Here is what Texas rules say:\nYou can register [Tex. Elec. Code § 11.002]. See https://statutes.capitol.texas.gov/Docs/EL/htm/EL.11.htm\n"
        "Places that can help:\n- Workforce Solutions, 713-555-0100, Houston, open 8-5 https://example.org/wfs"
    )
    resources = [{"name": "Workforce Solutions", "phone_display": "713-555-0100"}]
    citations = [
        {"citation": "Tex. Elec. Code § 11.002", "url": "https://statutes.capitol.texas.gov/Docs/EL/htm/EL.11.htm"}
    ]
    compacted, link = compact(text, resources=resources, citations=citations)
    assert "- Workforce Solutions: 713-555-0100" in compacted
    assert "open 8-5" not in compacted and "https://" not in compacted
    assert link == "https://statutes.capitol.texas.gov/Docs/EL/htm/EL.11.htm"


def test_a_short_reply_is_left_whole() -> None:
    shaped = shape("Call 2-1-1.", budget=320, more_hint=HINT, footer="This is general information, not legal advice.")
    assert shaped.text == "Call 2-1-1.\nThis is general information, not legal advice." and shaped.remainder == ""


def test_a_long_reply_fits_the_budget_keeps_the_footer_and_link_and_leaves_a_remainder() -> None:
    body = "Here is what Texas rules say: " + " ".join(
        ["You may vote after finishing your sentence [Tex. Elec. Code § 11.002]."] * 8
    )
    body += " Source https://example.org/a and https://example.org/b"
    footer = "This is general information, not legal advice."
    shaped = shape(
        body,
        budget=320,
        more_hint=HINT,
        footer=footer,
        citations=[{"citation": "Tex. Elec. Code § 11.002", "url": "https://example.org/a"}],
    )
    assert len(shaped.text) <= 320
    assert shaped.text.endswith(HINT)
    assert footer in shaped.text and shaped.text.count("https://") == 1 and "https://example.org/a" in shaped.text
    assert shaped.remainder and "https://" not in shaped.remainder
    assert encoding_of(shaped.text) == "GSM-7"


def test_budget_follows_the_setting(settings) -> None:
    shaped = shape("word " * 100, budget=160, more_hint=HINT)
    assert len(shaped.text) <= 160
