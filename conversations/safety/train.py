"""Train the message model: scikit-learn linear heads, calibrated, thresholds from the dev split.

Deterministic (sorted inputs, fixed folds and seeds, no threads racing over the result), so the
same data gives the same artifact. No LLM anywhere: an import-linter contract keeps it so.
Features: sublinear tf-idf over the shared character/word analyzer plus the MiniLM embedding of
the redacted message, the same two inputs the runtime hook sees.
"""

from __future__ import annotations

import hashlib
import io
import json
import zipfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import numpy as np
from scipy import sparse
from sklearn.calibration import CalibratedClassifierCV
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression

from conversations.hooks import detect_crisis, message_model, redact
from conversations.hooks.crisis import CARRY_MIN_MODEL_PROBABILITY, CRISIS_CATEGORIES
from conversations.hooks.textfeatures import analyze
from conversations.safety.data import EXPECT_TAGS, FLAG_NEGATIVE_TAGS, Message, data_hash
from resources.taxonomy import NEED_CATEGORIES
from vocab import NO_CRISIS as NONE
from vocab import SUICIDE

SEED: Final = 20261201
MAX_FEATURES: Final = 20000
MIN_DF: Final = 2
EMBEDDING_WEIGHT: Final = 1.0
C_CRISIS: Final = 8.0
C_CATEGORY: Final = 4.0
C_NEED: Final = 16.0
C_FLAG: Final = 4.0
FOLDS: Final = 5
# The crisis heads read the embedding at a lower weight than the need and flag heads. Until the eighth session they
# read the text alone (on the smaller dev of the time the embedding blurred false alarms). With ~7,750 training
# messages, on the retired blind sets (blind..blind8, 1,017 crises, 2,589 ordinary messages; rules OR the pooled
# head, its threshold from dev; ninth session): the text alone found 984 crises for 136 false alarms at a dev cap of
# 0.04 and 991 for 153 at 0.05; the embedding at 0.6 with C 8 found 995 for 124 and 1,000 for 137 (0.5 and 0.7
# within a few messages of it, 1.0 and above worse).
# A head fitted at this weight has it folded into its embedding coefficients (`_embedding_scaled`).
CRISIS_EMBEDDING_WEIGHT: Final = 0.6
# Recall-first crisis thresholds, up to a false-alarm cap: the highest threshold that keeps the
# recall target on dev, unless that costs more false alarms than the cap allows on dev's ordinary
# messages. The cap counts the decision as it runs, rules OR model (the model's alarms are added to
# the rules' own); the suicide head may add a little more. When the cap decides, the recall it costs
# is reported on the blind split, not hidden. The cap was 0.06 in the eighth session (text-only heads: at 0.05 the
# retired blind sets lost 4 crises for 23 fewer false alarms). With the embedding in the crisis heads (ninth session)
# the pooled head alone read, on the retired sets blind..blind8: cap 0.045 -> 999 of 1,017 crises, 128 false alarms
# of 2,589; 0.05 -> 1,000 and 137; 0.04 -> 995 and 124. The whole decision as shipped at 0.045 (mm-fdc0f8b52c3e):
# 999 and 130, against 998 and 181 for the eighth session's model. Dev's rules raise almost no false alarm (1 of
# 1,007, they were written beside it) while the retired sets' do (42 of 2,589), so the cap sits below the goal.
CRISIS_RECALL_TARGET: Final = 0.98
SUICIDE_RECALL_TARGET: Final = 1.0
CRISIS_FPR_CAP: Final = 0.045
SUICIDE_EXTRA_FPR_CAP: Final = 0.01
FLAG_THRESHOLD_RANGE: Final = (0.2, 0.8)
# Messages of at most this many words get crisis thresholds of their own: the n-gram heads see a
# handful of grams there and over-reach ("hey" p 0.59, "y cuanto tarda" 0.63 on the shipped model;
# a third of the dev conversations' false crises). Chosen on dev: as high as they can go without
# losing any short dev crisis that the ordinary thresholds catch, never below them.
SHORT_MESSAGE_WORDS: Final = 6
# A later turn of a conversation whose previous turn was no crisis gets crisis thresholds of its own, chosen the
# same way on the dev conversations' later turns: there the heads over-reach on follow-ups and place statements
# ("I'm in Pasadena by the way" p 0.39, "estoy en el lado este de el paso" 0.48); the lowest crisis that opens on
# a later dev turn read 0.44 on mm-00f2c2eb5f1d (later_thresholds).
# A crisis only the model raised carries to the next message only when the model was at least this far below
# the least sure of the dev conversation crises that truly went on into the next turn (carry_threshold).
CARRY_MARGIN: Final = 0.05

Embedder = Callable[[str], Sequence[float]]


@dataclass(frozen=True)
class Prepared:
    """Messages turned into the model's two inputs: redacted text and its embedding."""

    messages: list[Message]
    texts: list[str]
    embeddings: np.ndarray


def prepare(messages: Sequence[Message], embed: Embedder) -> Prepared:
    """Redact each message exactly as ingress does, then embed it one at a time (as a turn does)."""
    ordered = sorted(messages, key=lambda m: m.id)
    texts = [redact(m.text).text for m in ordered]
    vectors = np.asarray([list(embed(text)) if text.strip() else [0.0] * message_model.EMBEDDING_DIM for text in texts])
    return Prepared(ordered, texts, vectors.reshape(len(texts), message_model.EMBEDDING_DIM))


def _design(
    vectorizer: TfidfVectorizer, prepared: Prepared, embedding_weight: float = EMBEDDING_WEIGHT
) -> sparse.csr_matrix:
    """Text features beside the embedding; a weight of 0 leaves a head to the text alone (its embedding
    coefficients are then exactly 0, so the runtime's one feature layout serves every head)."""
    text = vectorizer.transform(prepared.texts)
    emb = sparse.csr_matrix(prepared.embeddings * embedding_weight)
    return sparse.hstack([text, emb], format="csr")


def _calibrated(
    c: float, x: sparse.csr_matrix, y: np.ndarray, *, balanced: bool
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Fit one logistic head with sigmoid calibration on cross-validated scores; return its arrays."""
    base = LogisticRegression(C=c, max_iter=3000, class_weight="balanced" if balanced else None, random_state=SEED)
    model = CalibratedClassifierCV(base, method="sigmoid", cv=FOLDS, ensemble=False)
    model.fit(x, y)
    fitted = model.calibrated_classifiers_[0]
    lr = fitted.estimator
    weights, bias = np.atleast_2d(lr.coef_), np.atleast_1d(lr.intercept_)
    cal_a = np.asarray([cal.a_ for cal in fitted.calibrators], dtype=np.float64)
    cal_b = np.asarray([cal.b_ for cal in fitted.calibrators], dtype=np.float64)
    return weights, bias, cal_a, cal_b


def _embedding_scaled(
    head: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray], ratio: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """A head's arrays with its embedding coefficients (the last EMBEDDING_DIM columns) multiplied by `ratio`."""
    weights = np.array(head[0], dtype=np.float64, copy=True)
    weights[:, -message_model.EMBEDDING_DIM :] *= ratio
    return weights, head[1], head[2], head[3]


def _crisis_threshold(
    probs: np.ndarray, positives: np.ndarray, target: float, fpr_cap: float, already: np.ndarray
) -> float:
    """Recall-first: the highest threshold with dev recall >= target, lowered no further than the cap allows.

    `already` marks dev messages that the decision flags anyway (the rules, another head): their
    alarms count against the cap whatever this head does.
    """
    scores = np.sort(probs[positives])
    if scores.size == 0:
        return 0.5
    allowed_misses = int(np.floor((1.0 - target) * scores.size + 1e-9))
    recall_threshold = float(scores[allowed_misses])
    negatives = ~positives
    budget = int(np.floor(fpr_cap * int(negatives.sum()))) - int((already & negatives).sum())
    fresh = np.sort(probs[negatives & ~already])[::-1]
    # The lowest threshold whose fresh false alarms stay within what the cap leaves.
    if budget < 0:
        cap_threshold = float(fresh[0]) + 1e-9 if fresh.size else 0.0
    elif budget < fresh.size:
        cap_threshold = float(fresh[budget]) + 1e-9
    else:
        cap_threshold = 0.0
    return float(max(recall_threshold, cap_threshold))


def _flag_threshold(probs: np.ndarray, positives: np.ndarray) -> float:
    """The F1-best threshold on dev (ties to the lower threshold: a missed hand-off costs more)."""
    low, high = FLAG_THRESHOLD_RANGE
    best, best_f1 = 0.5, -1.0
    for threshold in np.round(np.arange(low, high + 1e-9, 0.02), 2):
        predicted = probs >= threshold
        tp = int(np.sum(predicted & positives))
        fp, fn = int(np.sum(predicted & ~positives)), int(np.sum(~predicted & positives))
        f1 = 2 * tp / (2 * tp + fp + fn) if tp else 0.0
        if f1 > best_f1 + 1e-9:
            best, best_f1 = float(threshold), f1
    return best


def train(
    train_set: Prepared,
    dev_set: Prepared,
    *,
    short_turns: Prepared | None = None,
    flag_negatives: Prepared | None = None,
    later_turns: Prepared | None = None,
    carry_openers: Prepared | None = None,
) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """Fit every head on the training split and choose thresholds on dev; return (meta, arrays).

    `short_turns`: short dev conversation turns that open a topic (their previous turn is no crisis),
    pooled with dev's short messages to choose the short-message thresholds. `flag_negatives`: general
    questions that carry no own-case flag, added as negatives to those flags' heads only. `later_turns`: dev
    conversation turns after the first whose previous turn is no crisis, to choose the later-turn thresholds.
    `carry_openers`: dev conversation turns that open a crisis the next turn continues, to fit the carry bar.
    """
    vectorizer = TfidfVectorizer(
        analyzer=analyze, sublinear_tf=True, max_features=MAX_FEATURES, min_df=MIN_DF, norm="l2", dtype=np.float64
    )
    vectorizer.fit(train_set.texts)
    vocabulary = [gram for gram, _ in sorted(vectorizer.vocabulary_.items(), key=lambda item: item[1])]
    x = _design(vectorizer, train_set)
    arrays: dict[str, np.ndarray] = {"idf": vectorizer.idf_.astype(np.float32)}
    heads: dict[str, Any] = {}

    def store(name: str, classes: Sequence[str], parts: Sequence[tuple[np.ndarray, ...]], *, multiclass: bool) -> None:
        weights, bias, cal_a, cal_b = (
            np.concatenate([np.atleast_2d(p[0]) if i == 0 else np.atleast_1d(p[i]) for p in parts]) for i in range(4)
        )
        arrays[f"{name}_w"], arrays[f"{name}_b"] = weights.astype(np.float32), bias.astype(np.float64)
        arrays[f"{name}_a"], arrays[f"{name}_c"] = cal_a.astype(np.float64), cal_b.astype(np.float64)
        heads[name] = {"classes": list(classes), "multiclass": multiclass}

    crisis_y = np.asarray([m.crisis for m in train_set.messages])
    thin = [c for c in CRISIS_CATEGORIES if int(np.sum(crisis_y == c)) < 2 * FOLDS]
    if thin:
        raise ValueError(f"too few training messages for crisis categories {thin} (need {2 * FOLDS} each)")
    x_crisis = _design(vectorizer, train_set, CRISIS_EMBEDDING_WEIGHT)
    # The runtime scales every head's embedding by EMBEDDING_WEIGHT; a crisis head fitted on the embedding at its own
    # weight gets that ratio folded into its embedding coefficients, so w . (r e) is what the runtime computes.
    ratio = CRISIS_EMBEDDING_WEIGHT / EMBEDDING_WEIGHT
    store(
        "crisis_any",
        ["yes"],
        [_embedding_scaled(_calibrated(C_CRISIS, x_crisis, (crisis_y != "none").astype(int), balanced=True), ratio)],
        multiclass=False,
    )
    store(
        "crisis_suicide",
        ["yes"],
        [_embedding_scaled(_calibrated(C_CRISIS, x_crisis, (crisis_y == SUICIDE).astype(int), balanced=True), ratio)],
        multiclass=False,
    )
    # Which line, given a crisis: learned from the crisis messages only.
    in_crisis = crisis_y != "none"
    category_y = np.asarray([CRISIS_CATEGORIES.index(c) for c in crisis_y[in_crisis]])
    store(
        "crisis_category",
        CRISIS_CATEGORIES,
        [_calibrated(C_CATEGORY, x[in_crisis], category_y, balanced=True)],
        multiclass=True,
    )

    need_y = np.asarray([NEED_CATEGORIES.index(m.top_need) for m in train_set.messages])
    weights, bias, cal_a, cal_b = _calibrated(C_NEED, x, need_y, balanced=False)
    present = [NEED_CATEGORIES[i] for i in sorted(set(need_y.tolist()))]
    store("need", present, [(weights, bias, cal_a, cal_b)], multiclass=True)

    x_negatives = _design(vectorizer, flag_negatives) if flag_negatives is not None else None
    for tag in EXPECT_TAGS:
        y = np.asarray([int(tag in m.expect) for m in train_set.messages])
        x_flag = x
        if x_negatives is not None and tag in FLAG_NEGATIVE_TAGS:
            x_flag = sparse.vstack([x, x_negatives], format="csr")
            y = np.concatenate([y, np.zeros(x_negatives.shape[0], dtype=y.dtype)])
        if y.sum() >= FOLDS:
            store(f"flag_{tag}", ["yes"], [_calibrated(C_FLAG, x_flag, y, balanced=True)], multiclass=False)

    meta: dict[str, Any] = {
        "vocabulary": vocabulary,
        "embedding_weight": EMBEDDING_WEIGHT,
        "heads": heads,
        "thresholds": {"crisis": {}, "need": 0.0, "flags": {}},
        "version": "pending",
    }
    model = message_model.MessageModel(meta, arrays)
    meta["thresholds"] = _thresholds(model, dev_set, heads, short_turns)
    if later_turns is not None:
        meta["thresholds"]["crisis_later"] = later_thresholds(model, later_turns, meta["thresholds"]["crisis"])
    if carry_openers is not None:
        meta["thresholds"]["crisis_carry"] = carry_threshold(message_model.MessageModel(meta, arrays), carry_openers)
    meta["data"] = {
        "train_hash": data_hash(train_set.messages),
        "dev_hash": data_hash(dev_set.messages),
        "short_turns_hash": data_hash(short_turns.messages) if short_turns else None,
        "later_turns_hash": data_hash(later_turns.messages) if later_turns else None,
        "carry_openers_hash": data_hash(carry_openers.messages) if carry_openers else None,
        "flag_negatives_hash": data_hash(flag_negatives.messages) if flag_negatives else None,
        "flag_negatives_size": len(flag_negatives.messages) if flag_negatives else 0,
        "train_size": len(train_set.messages),
        "dev_size": len(dev_set.messages),
    }
    meta["params"] = {
        "seed": SEED,
        "max_features": MAX_FEATURES,
        "min_df": MIN_DF,
        "c_crisis": C_CRISIS,
        "c_category": C_CATEGORY,
        "c_need": C_NEED,
        "c_flag": C_FLAG,
        "folds": FOLDS,
        "crisis_embedding_weight": CRISIS_EMBEDDING_WEIGHT,
        "crisis_recall_target": CRISIS_RECALL_TARGET,
        "suicide_recall_target": SUICIDE_RECALL_TARGET,
        "crisis_fpr_cap": CRISIS_FPR_CAP,
        "suicide_extra_fpr_cap": SUICIDE_EXTRA_FPR_CAP,
        "short_message_words": SHORT_MESSAGE_WORDS,
        "carry_margin": CARRY_MARGIN,
        "calibration": "sigmoid (cross-validated, ensemble=False)",
    }
    meta["version"] = _version(meta, arrays)
    return meta, arrays


def _thresholds(
    model: message_model.MessageModel, dev_set: Prepared, heads: dict[str, Any], short_turns: Prepared | None = None
) -> dict[str, Any]:
    """Choose every threshold on the dev split (crisis recall-first under a false-alarm cap, flags by F1)."""
    meta: dict[str, Any] = {"thresholds": {"crisis": {}, "need": 0.0, "flags": {}}}
    dev_probs = [
        model.raw_probabilities(text, emb) for text, emb in zip(dev_set.texts, dev_set.embeddings, strict=True)
    ]
    dev_crisis = np.asarray([m.crisis for m in dev_set.messages])
    any_probs = np.asarray([p["crisis_any"]["yes"] for p in dev_probs])
    suicide_probs = np.asarray([p["crisis_suicide"]["yes"] for p in dev_probs])
    rules = np.asarray([detect_crisis(m.text).is_crisis for m in dev_set.messages])
    in_crisis_dev = dev_crisis != "none"
    any_threshold = _crisis_threshold(any_probs, in_crisis_dev, CRISIS_RECALL_TARGET, CRISIS_FPR_CAP, rules)
    flagged = rules | (any_probs >= any_threshold)
    extra_cap = CRISIS_FPR_CAP + SUICIDE_EXTRA_FPR_CAP
    suicide_threshold = _crisis_threshold(
        suicide_probs, dev_crisis == SUICIDE, SUICIDE_RECALL_TARGET, extra_cap, flagged
    )
    meta["thresholds"]["crisis"] = {"any": round(any_threshold, 6), SUICIDE: round(suicide_threshold, 6)}
    pool = [
        (p, m)
        for p, text, m in zip(dev_probs, dev_set.texts, dev_set.messages, strict=True)
        if message_model.word_count(text) <= SHORT_MESSAGE_WORDS
    ]
    if short_turns is not None:
        pool += [
            (model.raw_probabilities(text, emb), m)
            for text, emb, m in zip(short_turns.texts, short_turns.embeddings, short_turns.messages, strict=True)
        ]
    meta["thresholds"]["crisis_short"] = short_thresholds(
        [(p["crisis_any"]["yes"], p["crisis_suicide"]["yes"], m.crisis) for p, m in pool],
        meta["thresholds"]["crisis"],
    )
    for name in heads:
        if name.startswith("flag_"):
            tag = name.removeprefix("flag_")
            probs = np.asarray([p[name]["yes"] for p in dev_probs])
            positives = np.asarray([tag in m.expect for m in dev_set.messages])
            meta["thresholds"]["flags"][tag] = _flag_threshold(probs, positives) if positives.any() else 0.5
    meta["thresholds"]["need"] = _need_threshold(dev_probs, [m.top_need for m in dev_set.messages])
    return meta["thresholds"]


def short_thresholds(scored: Sequence[tuple[float, float, str]], base: dict[str, float]) -> dict[str, float]:
    """Crisis thresholds for short messages from (p_any, p_suicide, label) of short dev messages.

    Each is the lowest probability of a short dev crisis that the ordinary threshold of that head
    catches (so none of those is lost), never below the ordinary threshold; with no such crisis the
    ordinary threshold stands.
    """
    caught_any = [p for p, _, label in scored if label != NONE and p >= base["any"]]
    caught_suicide = [q for _, q, label in scored if label == SUICIDE and q >= base[SUICIDE]]
    return {
        "words": SHORT_MESSAGE_WORDS,
        "any": round(max(base["any"], min(caught_any, default=base["any"])), 6),
        SUICIDE: round(max(base[SUICIDE], min(caught_suicide, default=base[SUICIDE])), 6),
    }


def later_thresholds(model: message_model.MessageModel, turns: Prepared, base: dict[str, float]) -> dict[str, float]:
    """Crisis thresholds for a later conversation turn after no crisis: as `short_thresholds`, on those dev turns."""
    scored = []
    for text, emb, m in zip(turns.texts, turns.embeddings, turns.messages, strict=True):
        probs = model.raw_probabilities(text, emb)
        scored.append((probs["crisis_any"]["yes"], probs["crisis_suicide"]["yes"], m.crisis))
    found = short_thresholds(scored, base)
    return {"any": found["any"], SUICIDE: found[SUICIDE]}


def carry_threshold(model: message_model.MessageModel, openers: Prepared) -> float:
    """The least sure the model may be of a crisis it alone raised for that crisis to carry to the next turn.

    `openers` are dev conversation turns that open a crisis which the next turn continues, the rules silent on
    them. Among those the model catches (a later turn read with its later-turn thresholds), the lowest
    probability less `CARRY_MARGIN`: no such dev crisis loses its carry, and the borderline alarms below it,
    which on dev were mostly ordinary turns, do not turn the rest of a conversation into a crisis.
    """
    caught = []
    for text, emb, m in zip(openers.texts, openers.embeddings, openers.messages, strict=True):
        assessment = model.assess(text, emb)
        if m.turn > 1:
            assessment = assessment.later_turn()
        if assessment.crisis != NONE:
            caught.append(assessment.crisis_probability)
    if not caught:
        return CARRY_MIN_MODEL_PROBABILITY
    return round(max(0.0, min(caught) - CARRY_MARGIN), 4)


def _need_threshold(dev_probs: Sequence[dict[str, dict[str, float]]], labels: Sequence[str]) -> float:
    """The lowest top-probability at which the model's need is right >= 90 % of the time on dev.

    Below it the intake rules break the tie (they are precise when they fire).
    """
    pairs = sorted(
        (
            (max(p["need"].values()), max(p["need"], key=p["need"].__getitem__) == label)
            for p, label in zip(dev_probs, labels, strict=True)
        ),
        reverse=True,
    )
    best = 1.0
    correct = 0
    for count, (probability, right) in enumerate(pairs, start=1):
        correct += int(right)
        if correct / count >= 0.9:
            best = probability
    return round(float(best), 6)


def _version(meta: dict[str, Any], arrays: dict[str, np.ndarray]) -> str:
    digest = hashlib.sha256(json.dumps({k: v for k, v in meta.items() if k != "version"}, sort_keys=True).encode())
    for key in sorted(arrays):
        digest.update(key.encode())
        digest.update(np.ascontiguousarray(arrays[key]).tobytes())
    return f"mm-{digest.hexdigest()[:12]}"


def write_artifact(
    meta: dict[str, Any], arrays: dict[str, np.ndarray], directory: Path = message_model.ARTIFACT_DIR
) -> Path:
    """Write the artifact (JSON metadata + a zip of .npy arrays with fixed timestamps: byte-reproducible)."""
    directory.mkdir(parents=True, exist_ok=True)
    meta_path = directory / f"{message_model.ARTIFACT_NAME}.json"
    meta_path.write_text(json.dumps(meta, ensure_ascii=False, sort_keys=True, indent=0) + "\n", encoding="utf-8")
    with zipfile.ZipFile(
        directory / f"{message_model.ARTIFACT_NAME}.npz", "w", compression=zipfile.ZIP_DEFLATED
    ) as archive:
        for key in sorted(arrays):
            info = zipfile.ZipInfo(f"{key}.npy", date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            buffer = io.BytesIO()
            np.lib.format.write_array(buffer, np.ascontiguousarray(arrays[key]), allow_pickle=False)
            archive.writestr(info, buffer.getvalue())
    return meta_path
