"""PII redaction: every structured value goes, routing signal stays, and redaction is idempotent."""

from __future__ import annotations

import pytest

from conversations.hooks import Redaction, redact
from conversations.hooks.pii import PII_TYPES


@pytest.mark.parametrize(
    ("text", "value", "placeholder"),
    [
        ("my ssn is 412-55-7890", "412-55-7890", "[SSN]"),
        ("social 512889034", "512889034", "[SSN]"),
        ("last 4 of my social is 6789", "6789", "[SSN]"),
        ("call me at (832) 555 0199", "(832) 555 0199", "[PHONE]"),
        ("home phone 555-0142", "555-0142", "[PHONE]"),
        ("my tio in Monterrey: +52 81 1234 5678", "+52 81 1234 5678", "[PHONE]"),
        ("dob 3-14-85", "3-14-85", "[DOB]"),
        ("naci el 14 de marzo de 1985", "14 de marzo de 1985", "[DOB]"),
        ("TDCJ# 01234567", "01234567", "[TDCJ]"),
        ("my tdcj number 2345678", "2345678", "[TDCJ]"),
        ("my SID 12345678", "12345678", "[SID]"),
        ("01234999 is my tdcj number", "01234999", "[TDCJ]"),
        ("email me at marcus.j1985@gmail.com", "marcus.j1985@gmail.com", "[EMAIL]"),
        ("its jramirez at gmail dot com", "jramirez at gmail dot com", "[EMAIL]"),
        ("i live at 4521 Bellaire Blvd apt 12, Houston", "4521 Bellaire Blvd apt 12", "[ADDRESS]"),
        ("vivo en 2210 calle Hidalgo, Brownsville", "2210 calle Hidalgo", "[ADDRESS]"),
        ("pay with 4111 1111 1111 1111", "4111 1111 1111 1111", "[CARD]"),
        ("my name is Marcus Johnson and i just got out", "Marcus Johnson", "[NAME]"),
        ("me llamo José Luis Pérez, acabo de salir", "José Luis Pérez", "[NAME]"),
        ("my DL number is 12345678", "12345678", "[ID]"),
    ],
)
def test_it_replaces_each_pii_type_with_its_placeholder(text: str, value: str, placeholder: str) -> None:
    result = redact(text)
    assert value not in result.text
    assert placeholder in result.text
    assert (placeholder.strip("[]"), 1) in result.found


@pytest.mark.parametrize(
    "text",
    [
        "I'm in Houston 77002",
        "zip is 78201",
        "call 988 if u need to",
        "call 211 or 1-877-541-7905 for shelters",
        "I called the hotline at 1-800-656-4673 last night",
        "the parole fee is $10 a month, i owe $240",
        "my court date is 04/15/2025 at 9am in Harris County",
        "i did 12 years at the Ellis unit, got out in 2024",
        "i got 3 kids ages 4, 7 and 12",
        "is the office on 2nd street open at 8:30?",
        "the case number is 2019-CR-01234, can it be sealed?",
        "this is hard",
        "my name is not important",
    ],
)
def test_it_keeps_routing_signal_untouched(text: str) -> None:
    assert redact(text) == Redaction(text=text, found=())


def test_it_keeps_the_city_and_zip_next_to_a_redacted_address() -> None:
    out = redact("i'm at 1200 E 7th St, Austin TX 78702").text
    assert out == "i'm at [ADDRESS], Austin TX 78702"


def test_a_court_date_stays_while_the_birth_date_goes() -> None:
    out = redact("my court date is 4/15/2025 but my dob is 8/8/88").text
    assert out == "my court date is 4/15/2025 but my dob is [DOB]"


def test_found_counts_types_and_never_carries_a_raw_value() -> None:
    result = redact("reach me 817 555 0111 or my girl 817 555 0122, ssn 401-22-9987")
    assert result.found == (("PHONE", 2), ("SSN", 1))
    assert all(kind in PII_TYPES and isinstance(count, int) for kind, count in result.found)
    assert result.redacted


@pytest.mark.parametrize(
    "text",
    [
        "Marcus here. ssn 401-22-9987, cell 713-555-0167, email mj4real@gmail.com, TDCJ 02233445",
        "me llamo Rosa Elena, mi cel 956-555-0103, vivo en 415 calle Morelos, Edinburg TX 78539",
        "SSN-332-19-8876 dob-10.12.1977",
    ],
)
def test_redacting_twice_changes_nothing(text: str) -> None:
    once = redact(text)
    twice = redact(once.text)
    assert twice.text == once.text
    assert twice.found == ()


def test_invisible_characters_cannot_split_a_number_past_redaction() -> None:
    assert redact("my ssn is 412\u200b-55-7890").text == "my ssn is [SSN]"


@pytest.mark.parametrize(
    "text", ["", "   ", "😀😀😀", "\ud800", "a\udfffb", "\u200b", "x" * 20_000, "1" * 20_000, "-" * 20_000]
)
def test_bad_input_never_raises_and_yields_storable_text(text: str) -> None:
    result = redact(text)
    result.text.encode("utf-8")  # no lone surrogates left: the database will take it
    assert redact(result.text).text == result.text


def test_every_number_in_a_20k_message_is_redacted() -> None:
    text = "call 713-555-0182 now. " * 870
    result = redact(text)
    assert "555-0182" not in result.text
    assert result.found == (("PHONE", 870),)
