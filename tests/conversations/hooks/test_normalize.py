"""normalize: one canonical form for matching, whatever the input."""

from __future__ import annotations

import pytest

from conversations.hooks import normalize
from conversations.hooks.normalize import clean


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("k1ll mys3lf", "kill myself"),
        ("s u i c i d e", "suicide"),
        ("Ya no KIERO vivir, mañana", "ya no kiero vivir, manana"),
        ("I\u2019m done", "im done"),
        ("i think i od'd", "i think i oded"),
        ("that is odd", "that is odd"),
        ("kiiiiill", "kill"),
        ("\uff48\uff45\uff4c\uff4c\uff4f", "hello"),
        ("k\u0456ll", "kill"),
        ("  lots   of\n\nspace ", "lots of space"),
    ],
)
def test_it_folds_obfuscation_case_and_accents(raw: str, expected: str) -> None:
    assert normalize(raw) == expected


def test_it_keeps_ordinals_times_and_plain_numbers() -> None:
    assert normalize("report 1st at 5pm, call 988, $50") == "report 1st at 5pm, call 988, $50"


def test_clean_replaces_lone_surrogates_and_drops_invisible_characters() -> None:
    assert clean("a\ud800b\u200bc") == "a\ufffdbc"
    assert clean(None) == ""
    assert clean(12) == "12"
    assert clean("x" * 10, limit=4) == "xxxx"


def test_it_keeps_emoji_sequences_readable_but_drops_joiners_between_letters() -> None:
    assert clean("👨\u200d👩\u200d👧") == "👨\u200d👩\u200d👧"
    assert clean("d\u200die") == "die"
