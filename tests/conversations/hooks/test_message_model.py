"""The message model at run time: the shipped artifact, feature parity with the trainer, odd input, the crisis OR."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from sklearn.feature_extraction.text import TfidfVectorizer

from conversations.hooks import crisis_check, detect_crisis, message_model
from conversations.hooks.message_model import ARTIFACT_DIR, Assessment, MessageModel, assess, load
from conversations.hooks.textfeatures import analyze, fold

SHIPPED = load()


def test_the_shipped_artifact_loads_is_small_and_names_its_version() -> None:
    assert SHIPPED is not None
    meta = json.loads((ARTIFACT_DIR / "message_model.json").read_text())
    assert SHIPPED.version == meta["version"] and SHIPPED.version.startswith("mm-")
    size = sum(p.stat().st_size for p in ARTIFACT_DIR.glob("message_model.*"))
    assert size < 5_000_000, size
    assert set(SHIPPED.heads) >= {"crisis_any", "crisis_suicide", "crisis_category", "need"}
    assert set(SHIPPED.thresholds["crisis"]) == {"any", "suicide_self_harm"}
    short = SHIPPED.thresholds["crisis_short"]
    assert short["words"] >= 3
    assert all(short[key] >= SHIPPED.thresholds["crisis"][key] for key in ("any", "suicide_self_harm"))
    later = SHIPPED.thresholds["crisis_later"]
    assert all(later[key] >= SHIPPED.thresholds["crisis"][key] for key in ("any", "suicide_self_harm"))


def test_a_later_turn_reading_is_never_more_alarmed_than_the_ordinary_one() -> None:
    assert SHIPPED is not None
    for text in ("I'm in Pasadena by the way", "i been saving up my pills", "estoy en el lado este", "hola"):
        found = SHIPPED.assess(text)
        assert found.crisis_later in (found.crisis, "none"), text
        assert found.later_turn().crisis == found.crisis_later


def test_runtime_text_features_equal_the_trainers_tfidf() -> None:
    texts = ["necesito ayuda con la renta", "my PO wants a UA tomorrow", "dónde queda el DPS", "need food tonight"]
    vectorizer = TfidfVectorizer(analyzer=analyze, sublinear_tf=True, norm="l2").fit(texts)
    vocabulary = [g for g, _ in sorted(vectorizer.vocabulary_.items(), key=lambda item: item[1])]
    arrays = {"idf": vectorizer.idf_}
    model = MessageModel(
        {"version": "t", "vocabulary": vocabulary, "embedding_weight": 1.0, "heads": {}, "thresholds": {}}, arrays
    )
    for text in [*texts, "renta renta tomorrow"]:
        idx, val = model.text_features(text)
        dense = np.zeros(len(vocabulary))
        dense[idx] = val
        assert np.allclose(dense, vectorizer.transform([text]).toarray()[0])


def test_folding_keeps_enye_and_squeezes_repeats() -> None:
    assert fold("AÑO Cárcel nooooo") == "año carcel noo"


@pytest.mark.parametrize(
    "text",
    ["", "   ", "ayuda " * 400, "😭😭😭", "помогите me please", "555-123-4567", None, 42, "\x00\x01"],
)
def test_odd_input_never_raises_and_is_conservative(text: object) -> None:
    result = assess(text, None)
    assert isinstance(result, Assessment)
    if not isinstance(text, str) or not text.strip():
        assert not result.available and result.crisis == "none"


def test_the_same_input_gives_the_same_output() -> None:
    vector = [0.01] * 384
    first = assess("i been saving my pills for a while now", vector)
    assert first == assess("i been saving my pills for a while now", vector)


def test_a_bad_embedding_is_ignored_not_fatal() -> None:
    assert assess("need a bed tonight", [math.nan] * 384).available
    assert assess("need a bed tonight", [0.1] * 3).available


def test_no_artifact_means_unavailable(tmp_path: Path) -> None:
    assert load(tmp_path) is None


class _Opinion:
    available = True

    def __init__(self, category: str) -> None:
        self.category = category
        self.severity = "high" if category != "none" else "none"


def test_the_model_can_escalate_but_never_cancel_a_rule_hit() -> None:
    text = "i want to kill myself"
    assert detect_crisis(text).is_crisis
    assert crisis_check(text, _Opinion("none")).category == "suicide_self_harm"
    escalated = crisis_check("what is a good bus route", _Opinion("medical_emergency_overdose"))
    assert escalated.category == "medical_emergency_overdose" and escalated.source == "model"
    assert crisis_check("what is a good bus route", None).category == "none"


def test_the_shipped_model_catches_indirect_suicide_the_rules_miss() -> None:
    # Written for this test (not from any data set): a giving-away goodbye with no keyword.
    text = "gave my dog to my sister and wrote letters to my kids, tell them im sorry for everything"
    from corpus.embeddings import embed_one

    assessment = assess(text, embed_one(text))
    assert assessment.available
    assert crisis_check(text, assessment).category == "suicide_self_harm"


def test_summary_is_json_and_carries_what_intake_reads() -> None:
    summary = assess("where can i get food stamps", None).summary()
    json.dumps(summary)
    assert {"top_need", "need_sure", "flags", "flag_probs", "flag_thresholds", "version"} <= set(summary)
    assert message_model.get_model() is message_model.get_model()


def _fixed(model: MessageModel, p_any: float, p_suicide: float) -> MessageModel:
    """The shipped model with every message scored alike, so only the thresholds decide."""
    real = model.raw_probabilities

    def scored(text: str, embedding: object = None) -> dict[str, dict[str, float]]:
        probs = real(text, None)
        probs["crisis_any"] = {"yes": p_any}
        probs["crisis_suicide"] = {"yes": p_suicide}
        return probs

    model.raw_probabilities = scored  # type: ignore[method-assign]
    return model


def test_a_short_message_needs_the_higher_short_thresholds() -> None:
    model = load()
    assert model is not None
    base, short = model.thresholds["crisis"], model.thresholds["crisis_short"]
    between = (base["any"] + short["any"]) / 2
    assert base["any"] < between < short["any"]
    _fixed(model, between, 0.0)
    # The same probability is a crisis in a long message and not in a short one ("hey", "y cuanto tarda").
    assert model.assess("y cuanto tarda", None).crisis == "none"
    assert model.assess("i have been thinking about it for a long while and i am tired of all of it", None).crisis != (
        "none"
    )
    _fixed(model, short["any"] + 1e-6, 0.0)
    assert model.assess("y cuanto tarda", None).crisis != "none"


def test_word_count_counts_words_not_punctuation() -> None:
    assert message_model.word_count("Y cuánto tarda??") == 3
    assert message_model.word_count("ok 😭😭") == 1
    assert message_model.word_count("") == 0
