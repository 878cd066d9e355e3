"""The message model's pipeline: three separate data sets, a frozen blind split, deterministic training."""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from pathlib import Path
from typing import cast

import numpy as np
import pytest

from conversations.hooks import message_model
from conversations.hooks.crisis import CARRY_MIN_MODEL_PROBABILITY, CrisisResult, crisis_carries
from conversations.safety import data, evaluate, train
from conversations.safety.data import DataError, Message
from resources.taxonomy import NEED_CATEGORIES


def _all_blind() -> list[Message]:
    return data.every_blind_message()


def test_the_blind_splits_are_byte_for_byte_the_frozen_ones() -> None:
    data.verify_blind()
    pinned = data.blind_hashes()
    assert set(pinned) == {
        "blind_messages.jsonl",
        "blind_conversations.jsonl",
        "blind2_messages.jsonl",
        "blind2_conversations.jsonl",
        "blind3_messages.jsonl",
        "blind3_conversations.jsonl",
        "blind4_messages.jsonl",
        "blind4_conversations.jsonl",
        "blind5_messages.jsonl",
        "blind5_conversations.jsonl",
        "blind6_messages.jsonl",
        "blind6_conversations.jsonl",
        "blind7_messages.jsonl",
        "blind7_conversations.jsonl",
        "blind8_messages.jsonl",
        "blind8_conversations.jsonl",
        "blind9_messages.jsonl",
        "blind9_conversations.jsonl",
        "blind10_messages.jsonl",
        "blind10_conversations.jsonl",
        "blind11_messages.jsonl",
        "blind11_conversations.jsonl",
        "blind12_messages.jsonl",
        "blind12_conversations.jsonl",
        "blind13_messages.jsonl",
        "blind13_conversations.jsonl",
    }
    assert {p.name for pair in data.BLIND_SETS.values() for p in pair} == set(pinned)


def test_a_changed_blind_file_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("blind_messages.jsonl", "blind_conversations.jsonl", "BLIND.sha256"):
        (tmp_path / name).write_bytes((data.DATA_DIR / name).read_bytes())
    with (tmp_path / "blind_messages.jsonl").open("a", encoding="utf-8") as handle:
        handle.write(
            json.dumps(
                {
                    "id": "x",
                    "text": "tuned",
                    "channel": "sms",
                    "language": "en",
                    "crisis": "none",
                    "top_need": "other",
                    "region": "unknown",
                }
            )
            + "\n"
        )
    monkeypatch.setattr(data, "DATA_DIR", tmp_path)
    monkeypatch.setattr(data, "BLIND_HASHES", tmp_path / "BLIND.sha256")
    with pytest.raises(DataError, match="frozen hash"):
        data.verify_blind()


def test_the_three_sets_are_big_enough_and_never_overlap() -> None:
    train_rows, dev_rows, blind = data.read_messages(data.TRAIN), data.read_messages(data.DEV), _all_blind()
    assert len(train_rows) >= 3000
    # The size holds for each full generation; the third (a fresh reading) is smaller.
    sizes = {
        "blind": (400, 60),
        "blind2": (400, 60),
        "blind3": (320, 40),
        "blind4": (400, 60),
        "blind5": (400, 60),
        "blind6": (400, 60),
        "blind7": (400, 60),
        "blind8": (400, 60),
        "blind9": (400, 60),
        "blind10": (400, 60),
        "blind11": (400, 60),
        "blind12": (400, 60),
        "blind13": (400, 60),
    }
    assert set(sizes) == set(data.BLIND_SETS)
    for name, (messages_file, conversations_file) in data.BLIND_SETS.items():
        assert len(data.read_messages(messages_file)) >= sizes[name][0]
        assert len(data.read_conversations(conversations_file)) >= sizes[name][1]
    assert not {m.id for m in train_rows} & {m.id for m in dev_rows}
    data.assert_disjoint(train_rows + dev_rows, blind)
    spanish = sum(m.language == "es" for m in train_rows) / len(train_rows)
    assert spanish >= 0.40
    crises = Counter(m.crisis for m in train_rows)
    assert all(crises[c] >= 100 for c in data.CRISIS_LABELS if c != "none")
    assert {m.top_need for m in train_rows} == set(NEED_CATEGORIES)
    assert all(sum(tag in m.expect for m in train_rows) >= 80 for tag in data.EXPECT_TAGS)


def test_overlapping_training_data_is_refused() -> None:
    blind = data.read_messages(data.BLIND_MESSAGES)[:3]
    with pytest.raises(DataError, match="repeat blind"):
        data.assert_disjoint([Message(**{**blind[0].__dict__, "id": "copy"})], blind)


def test_a_label_outside_the_guide_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(
        json.dumps(
            {
                "id": "1",
                "text": "x",
                "channel": "sms",
                "language": "en",
                "crisis": "panic",
                "top_need": "other",
                "region": "unknown",
            }
        )
        + "\n",
        encoding="utf-8",
    )
    with pytest.raises(DataError, match="crisis='panic'"):
        data.read_messages(path)
    path.write_text("{not json\n", encoding="utf-8")
    with pytest.raises(DataError, match="not JSON"):
        data.read_messages(path)


def _stub_embed(text: str) -> list[float]:
    digest = hashlib.sha256(text.encode()).digest()
    return [(digest[i % 32] - 128) / 1280 for i in range(384)]


def _small(rows: list[Message], per_crisis: int, ordinary: int) -> list[Message]:
    picked: list[Message] = []
    counts: Counter[str] = Counter()
    for m in sorted(rows, key=lambda m: m.id):
        limit = ordinary if m.crisis == "none" else per_crisis
        if counts[m.crisis] < limit:
            picked.append(m)
            counts[m.crisis] += 1
    return picked


@pytest.mark.slow
def test_training_is_deterministic_the_same_data_gives_the_same_artifact(tmp_path: Path) -> None:
    rows = data.read_messages(data.TRAIN)
    small_train = train.prepare(_small(rows, 20, 420), _stub_embed)
    small_dev = train.prepare(_small(data.read_messages(data.DEV), 8, 120), _stub_embed)
    first, second = tmp_path / "a", tmp_path / "b"
    train.write_artifact(*train.train(small_train, small_dev), directory=first)
    train.write_artifact(*train.train(small_train, small_dev), directory=second)
    for name in ("message_model.json", "message_model.npz"):
        assert (first / name).read_bytes() == (second / name).read_bytes(), name


@pytest.mark.slow
def test_the_runtime_reads_a_crisis_head_as_it_was_fitted_embedding_weight_included() -> None:
    """The crisis heads are fitted on the embedding at CRISIS_EMBEDDING_WEIGHT while the runtime feeds every head the
    embedding at EMBEDDING_WEIGHT: the artifact must fold the ratio into the coefficients, or every threshold chosen
    on dev and every decision at run time reads a different model from the one that was fitted."""
    from scipy import sparse
    from sklearn.feature_extraction.text import TfidfVectorizer

    from conversations.hooks.textfeatures import analyze

    assert train.CRISIS_EMBEDDING_WEIGHT != train.EMBEDDING_WEIGHT  # otherwise this test proves nothing
    small_train = train.prepare(_small(data.read_messages(data.TRAIN), 20, 420), _stub_embed)
    small_dev = train.prepare(_small(data.read_messages(data.DEV), 8, 60), _stub_embed)
    meta, arrays = train.train(small_train, small_dev)
    runtime = message_model.MessageModel(meta, arrays)
    vectorizer = TfidfVectorizer(
        analyzer=analyze, sublinear_tf=True, vocabulary=meta["vocabulary"], norm="l2", dtype=np.float64
    )
    vectorizer.fit(small_train.texts)
    vectorizer.idf_ = arrays["idf"].astype(np.float64)

    def design(prepared: train.Prepared) -> sparse.csr_matrix:
        text = vectorizer.transform(prepared.texts)
        return sparse.hstack(
            [text, sparse.csr_matrix(prepared.embeddings * train.CRISIS_EMBEDDING_WEIGHT)], format="csr"
        )

    y = np.asarray([m.crisis != "none" for m in small_train.messages]).astype(int)
    weights, bias, cal_a, cal_b = train._calibrated(train.C_CRISIS, design(small_train), y, balanced=True)
    scores = design(small_dev) @ weights.ravel() + bias[0]
    expected = 1.0 / (1.0 + np.exp(cal_a[0] * scores + cal_b[0]))
    got = [
        runtime.raw_probabilities(text, emb)["crisis_any"]["yes"]
        for text, emb in zip(small_dev.texts, small_dev.embeddings, strict=True)
    ]
    assert np.allclose(got, expected, atol=1e-4)


def test_floors_report_what_is_missed() -> None:
    values = {
        "crisis_recall": 0.97,
        "suicide_recall": 1.0,
        "false_crisis_rate": 0.02,
        "spanish_gap_need_accuracy": -0.1,
    }
    failures = evaluate.check_floors(values)
    assert failures == ["crisis_recall = 0.9700, floor >= 0.98"]


def test_short_message_thresholds_keep_every_short_dev_crisis_the_ordinary_ones_catch() -> None:
    base = {"any": 0.4, "suicide_self_harm": 0.6}
    scored = [
        (0.95, 0.1, "housing_emergency"),
        (0.87, 0.93, "suicide_self_harm"),
        (0.2, 0.1, "medical_emergency_overdose"),  # missed by the ordinary threshold too: it does not lower anything
        (0.7, 0.65, "none"),  # a false alarm the short threshold now stops
    ]
    short = train.short_thresholds(scored, base)
    assert short["any"] == 0.87 and short["suicide_self_harm"] == 0.93
    assert short["words"] >= 3
    # Never below the ordinary thresholds, and the ordinary ones stand when no short crisis is caught.
    assert train.short_thresholds([(0.1, 0.1, "suicide_self_harm"), (0.9, 0.9, "none")], base) | {"words": 0} == {
        "words": 0,
        **base,
    }


class _Says:
    """A model that reads each text's crisis probability from a table (ordinary and later-turn alike)."""

    def __init__(self, table: dict[str, tuple[str, float]]) -> None:
        self.table = table

    def assess(self, text: str, embedding: object = None) -> message_model.Assessment:
        crisis, p = self.table[text]
        return message_model.Assessment(crisis=crisis, crisis_probability=p, crisis_later=crisis, available=True)


def _openers(texts: list[str]) -> train.Prepared:
    messages = [
        Message(
            id=f"c{i}",
            text=t,
            channel="sms",
            language="en",
            crisis="suicide_self_harm",
            top_need="health",
            region="unknown",
            turn=1,
        )
        for i, t in enumerate(texts)
    ]
    return train.Prepared(messages, texts, np.zeros((len(texts), message_model.EMBEDDING_DIM)))


def test_the_carry_bar_sits_a_margin_below_the_least_sure_dev_crisis_that_went_on() -> None:
    model = _Says({"a": ("suicide_self_harm", 0.91), "b": ("housing_emergency", 0.62), "c": ("none", 0.2)})
    # "c" was missed by the model (the rules or context caught it): it cannot lower the bar.
    bar = train.carry_threshold(cast(message_model.MessageModel, model), _openers(["a", "b", "c"]))
    assert bar == pytest.approx(0.62 - train.CARRY_MARGIN)
    assert not crisis_carries(CrisisResult(category="housing_emergency", source="model"), bar - 0.01, bar)
    assert crisis_carries(CrisisResult(category="housing_emergency", source="model"), 0.62, bar)
    # No dev crisis the model caught: the artifact keeps the bar an older artifact had.
    none_caught = train.carry_threshold(cast(message_model.MessageModel, model), _openers(["c"]))
    assert none_caught == CARRY_MIN_MODEL_PROBABILITY


def test_an_artifact_without_a_carry_bar_reads_the_old_constant() -> None:
    model = message_model.get_model()
    assert model is not None
    expected = float(model.thresholds.get("crisis_carry", CARRY_MIN_MODEL_PROBABILITY))
    assert model.assess("necesito trabajo en houston").carry_threshold == expected
