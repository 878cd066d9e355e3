"""Key points: one plain fact each in en and es, each quoting its entry verbatim, each agreeing with its quote."""

from __future__ import annotations

import copy
import json

import pytest

from audit.claims import check_claim, sentences_of
from audit.rules import readability
from corpus.services import FIXTURE_PATH, CorpusLoadError, _validate
from tests.audit.grounding import corpus_records

ENTRIES = json.loads(FIXTURE_PATH.read_text(encoding="utf-8"))["entries"]


def test_every_citable_entry_has_key_points_and_unverified_ones_have_none():
    for entry in ENTRIES:
        if entry["verified"] and entry["source_excerpt"]:
            assert entry["key_points"], entry["slug"]
        else:
            assert not entry.get("key_points"), entry["slug"]


@pytest.mark.parametrize("language", ["en", "es"])
def test_each_key_point_agrees_with_its_own_quote(language):
    records = corpus_records(language)
    disagreements = []
    for entry in ENTRIES:
        for point in entry.get("key_points") or []:
            for sentence in sentences_of(point[language]):
                check = check_claim(sentence.rstrip("."), records[entry["slug"]], quote=point[f"quote_{language}"])
                if check.outcome != "supported":
                    disagreements.append((entry["slug"], sentence, check.detail))
    assert disagreements == []


def test_the_parole_voting_point_leads_with_the_answer():
    point = next(e for e in ENTRIES if e["slug"] == "tx-elec-11-002")["key_points"][0]
    assert point["kind"] == "eligibility"
    assert point["en"].startswith("Not yet:") and point["es"].startswith("Todavía no:")


def test_a_key_point_whose_quote_is_not_in_the_entry_is_refused():
    records = copy.deepcopy([e for e in ENTRIES if e["slug"] == "tx-elec-11-002"])
    records[0]["key_points"][0]["quote_en"] = "people on parole may vote in Texas"
    with pytest.raises(CorpusLoadError, match="quote_en is not a verbatim span"):
        _validate(records)


def test_every_entry_read_against_the_statute_has_a_date():
    corrected = {
        "tx-ccp-62-059",
        "tx-elec-16-003-16-033",
        "tx-gov-508-147",
        "us-21-862a",
        "tx-tac-25-181-28",
        "tx-ccp-62-101",
        "tx-gov-508-181",
        "tx-transp-521-1421",
        "tx-gov-501-102",
    }
    dated = {e["slug"] for e in ENTRIES if e.get("last_checked")}
    assert corrected <= dated


def test_most_key_points_read_at_grade_seven_or_below():
    """The template leads with a key point; a reader a week out of prison reads it on a phone.

    Rewritten in plain words on 2026-12-01: 178 of 192 English points are at Flesch-Kincaid grade 7 or below
    (119 were before), in short "you" sentences that keep each quote's conditions, numbers and polarity. The
    first sentence of each point is its answer (a compact SMS keeps only that one), so the 14 left above 7
    keep their deciding condition in that sentence rather than split it off, or a legal term people must
    recognise ("deferred adjudication") rather than pad the point with short sentences; none is above 12.
    """
    points = [p["en"] for e in ENTRIES for p in e.get("key_points") or []]
    plain = [p for p in points if readability(p, "en")[0] <= 7]
    assert len(points) >= 192
    assert len(plain) / len(points) >= 0.92
    assert max(readability(p, "en")[0] for p in points) <= 12


def test_no_key_point_sentence_is_a_question():
    """The template cites every sentence of a point as a statement; "Were you acquitted?" states nothing."""
    texts = [(e["slug"], p[lang]) for e in ENTRIES for p in e.get("key_points") or [] for lang in ("en", "es")]
    assert [(slug, text) for slug, text in texts if "?" in text] == []
