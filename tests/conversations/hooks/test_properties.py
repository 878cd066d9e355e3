"""Property tests: the hooks never raise, redaction is idempotent, crisis detection is stable."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from conversations.evaluation.hooks_metrics import DEV_DIR, load_jsonl
from conversations.hooks import combine_crisis, detect_crisis, redact
from conversations.hooks.crisis import CRISIS_CATEGORIES, SEVERITIES
from conversations.hooks.pii import PII_TYPES

# Every code point, lone surrogates included: input can arrive from any channel.
ANY_TEXT = st.text(alphabet=st.characters(exclude_categories=()), max_size=300)
PII_FRAGMENTS = [
    "713-555-0182",
    "(832) 555 0199",
    "555-0142",
    "+52 81 1234 5678",
    "412-55-7890",
    "512889034",
    "TDCJ# 01234567",
    "SID 12345678",
    "dob 3/14/85",
    "born March 14, 1985",
    "a.b+c@gmail.com",
    "4111 1111 1111 1111",
    "4521 Bellaire Blvd apt 12",
    "calle Hidalgo 234",
    "my name is Ana Lopez",
    "me llamo José",
    "Houston 77002",
    "1-800-799-7233",
    "988",
    "$240",
    "2019",
    "#",
    "-",
    "/",
    " ",
    "\n",
    "1",
    "12",
    "123",
    "1234",
    "st",
    "ave",
    "at",
    "gmail",
    "dot",
    "com",
    "[SSN]",
    "[PHONE]",
]
PII_SOUP = st.lists(st.sampled_from(PII_FRAGMENTS) | st.text(max_size=6), max_size=12).map("".join)
CRISIS_ROWS: list[dict[str, Any]] = load_jsonl(DEV_DIR / "crisis_dev.jsonl")
ZERO_WIDTH = st.sampled_from(["\u200b", "\u200c", "\u2060", "\ufeff", "\u00ad"])


@settings(max_examples=300, deadline=None)
@given(ANY_TEXT)
def test_the_hooks_never_raise_on_any_text(text: str) -> None:
    crisis = detect_crisis(text)
    assert crisis.category in (*CRISIS_CATEGORIES, "none")
    redacted = redact(text)
    redacted.text.encode("utf-8")


@settings(max_examples=400, deadline=None)
@given(ANY_TEXT | PII_SOUP)
def test_redaction_is_idempotent(text: str) -> None:
    once = redact(text)
    assert redact(once.text).text == once.text


@settings(max_examples=200, deadline=None)
@given(PII_SOUP)
def test_found_reports_types_and_counts_only(text: str) -> None:
    for kind, count in redact(text).found:
        assert kind in PII_TYPES
        assert isinstance(count, int)
        assert count > 0


@st.composite
def perturbed(draw: st.DrawFn) -> tuple[str, str]:
    """A dev-set message with its case flipped, whitespace re-spaced and zero-width chars inserted."""
    original = draw(st.sampled_from([r["text"] for r in CRISIS_ROWS]))
    chars: list[str] = []
    for ch in original:
        if ch == " ":
            chars.append(draw(st.sampled_from([" ", "  ", "\t", "\n", " \u200b"])))
            continue
        chars.append(ch.upper() if draw(st.booleans()) else ch)
        if draw(st.integers(0, 9)) == 0:
            chars.append(draw(ZERO_WIDTH))
    return original, "".join(chars)


@settings(max_examples=400, deadline=None)
@given(perturbed())
def test_crisis_detection_is_stable_under_case_whitespace_and_zero_width(pair: tuple[str, str]) -> None:
    original, noisy = pair
    assert detect_crisis(noisy).category == detect_crisis(original).category


OPINIONS = (
    st.builds(
        lambda c, s: type("Opinion", (), {"category": c, "severity": s})(),
        st.sampled_from([*CRISIS_CATEGORIES, "none", "junk"]),
        st.sampled_from([*SEVERITIES, "junk"]),
    )
    | st.none()
)


@settings(max_examples=300, deadline=None)
@given(st.sampled_from([r["text"] for r in CRISIS_ROWS]), OPINIONS)
def test_a_second_opinion_can_only_escalate(text: str, opinion: object) -> None:
    rules = detect_crisis(text)
    combined = combine_crisis(rules, opinion)  # type: ignore[arg-type]
    assert SEVERITIES.index(combined.severity) >= SEVERITIES.index(rules.severity)
    if rules.is_crisis:
        assert combined.is_crisis
        assert rules.category in combined.categories
        assert set(rules.categories) <= set(combined.categories)
