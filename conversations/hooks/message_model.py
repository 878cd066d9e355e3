"""The trained message model at run time: crisis, need and hand-off heads as a pure function.

`assess(text, embedding)` scores one redacted message with the versioned artifact that
`manage.py safety train` writes (linear heads over character n-grams and the MiniLM query
embedding the turn already computes, each head calibrated with a sigmoid). The artifact is read
once per process; the function never trains, never downloads and never raises: without an
artifact, or on any odd input, it returns an assessment marked unavailable and the rules decide.
"""

from __future__ import annotations

import json
import logging
import math
import re
import threading
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Final

import numpy as np

from conversations.hooks.crisis import CARRY_MIN_MODEL_PROBABILITY
from conversations.hooks.textfeatures import analyze, fold
from vocab import NO_CRISIS as NONE
from vocab import SUICIDE

__all__ = ["ARTIFACT_DIR", "Assessment", "MessageModel", "assess", "get_model", "load", "word_count"]

logger = logging.getLogger(__name__)

ARTIFACT_DIR: Final = Path(__file__).resolve().parent / "artifacts"
ARTIFACT_NAME: Final = "message_model"
EMBEDDING_DIM: Final = 384
_WORDS: Final = re.compile(r"[a-z0-9ñ]+")


def word_count(text: str) -> int:
    """Words in a message, as the short-message crisis thresholds count them (trainer and runtime alike)."""
    return len(_WORDS.findall(fold(text)))


@dataclass(frozen=True, slots=True)
class Assessment:
    """The model's calibrated view of one message; `available` is False when no model decided."""

    crisis: str = NONE
    crisis_probability: float = 0.0
    crisis_probs: dict[str, float] = field(default_factory=dict)
    top_need: str | None = None
    need_probability: float = 0.0
    need_sure: bool = False
    need_ranked: tuple[tuple[str, float], ...] = ()
    flags: tuple[str, ...] = ()
    flag_probs: dict[str, float] = field(default_factory=dict)
    flag_thresholds: dict[str, float] = field(default_factory=dict)
    version: str = ""
    available: bool = False
    # The crisis under the thresholds for a later conversation turn whose previous turn was no crisis.
    crisis_later: str = NONE
    # How sure the model must be of a crisis it alone raised for that crisis to carry to the next message.
    carry_threshold: float = CARRY_MIN_MODEL_PROBABILITY

    # The CrisisOpinion protocol of crisis.combine_crisis reads category and severity.
    @property
    def category(self) -> str:
        return self.crisis

    @property
    def severity(self) -> str:
        return "high" if self.crisis != NONE else "none"

    def later_turn(self) -> Assessment:
        """This assessment as it reads on a later turn of a conversation that was no crisis so far."""
        return replace(self, crisis=self.crisis_later)

    def summary(self) -> dict[str, Any]:
        """A small JSON-able record for the turn state and the NodeRun trace."""
        return {
            "available": self.available,
            "version": self.version,
            "crisis": self.crisis,
            "crisis_probability": round(self.crisis_probability, 4),
            "crisis_later": self.crisis_later,
            "top_need": self.top_need,
            "need_probability": round(self.need_probability, 4),
            "need_sure": self.need_sure,
            "need_ranked": [[name, round(p, 4)] for name, p in self.need_ranked[:3]],
            "flags": list(self.flags),
            "flag_probs": {tag: round(p, 4) for tag, p in sorted(self.flag_probs.items())},
            "flag_thresholds": dict(sorted(self.flag_thresholds.items())),
        }


UNAVAILABLE: Final = Assessment()


@dataclass(frozen=True)
class _Head:
    classes: tuple[str, ...]
    weights: np.ndarray  # (classes or 1, features)
    bias: np.ndarray
    cal_a: np.ndarray
    cal_b: np.ndarray
    multiclass: bool

    def probabilities(self, text_idx: np.ndarray, text_val: np.ndarray, emb: np.ndarray, vocab_size: int) -> np.ndarray:
        scores = self.weights[:, text_idx] @ text_val + self.weights[:, vocab_size:] @ emb + self.bias
        # sklearn's sigmoid calibration: p = 1 / (1 + exp(a·f + b)); exponent clipped against overflow.
        probs = 1.0 / (1.0 + np.exp(np.clip(self.cal_a * scores + self.cal_b, -50.0, 50.0)))
        if self.multiclass:
            total = float(probs.sum())
            probs = probs / total if total > 0 else np.full_like(probs, 1.0 / len(probs))
        result: np.ndarray = probs
        return result


class MessageModel:
    """Loaded artifact: vocabulary, idf, heads and the thresholds chosen on the dev split."""

    def __init__(self, meta: dict[str, Any], arrays: dict[str, np.ndarray]) -> None:
        self.meta = meta
        self.version: str = str(meta["version"])
        self.vocab: dict[str, int] = {gram: index for index, gram in enumerate(meta["vocabulary"])}
        self.vocab_size = len(self.vocab)
        self.idf = arrays["idf"].astype(np.float64)
        self.embedding_weight = float(meta["embedding_weight"])
        self.thresholds: dict[str, Any] = meta["thresholds"]
        self.heads: dict[str, _Head] = {}
        for name, spec in meta["heads"].items():
            self.heads[name] = _Head(
                classes=tuple(spec["classes"]),
                weights=arrays[f"{name}_w"].astype(np.float64),
                bias=arrays[f"{name}_b"].astype(np.float64),
                cal_a=arrays[f"{name}_a"].astype(np.float64),
                cal_b=arrays[f"{name}_c"].astype(np.float64),
                multiclass=bool(spec["multiclass"]),
            )

    def text_features(self, text: str) -> tuple[np.ndarray, np.ndarray]:
        """Sublinear tf-idf over the vocabulary, L2-normalised (what the trainer's vectorizer computes)."""
        counts = Counter(gram for gram in analyze(text) if gram in self.vocab)
        if not counts:
            return np.zeros(0, dtype=np.int64), np.zeros(0)
        idx = np.fromiter((self.vocab[g] for g in counts), dtype=np.int64, count=len(counts))
        tf = np.fromiter((1.0 + math.log(c) for c in counts.values()), dtype=np.float64, count=len(counts))
        values = tf * self.idf[idx]
        norm = float(np.linalg.norm(values))
        return idx, (values / norm if norm > 0 else values)

    def raw_probabilities(self, text: str, embedding: Sequence[float] | None) -> dict[str, dict[str, float]]:
        """Every head's calibrated probabilities for one message."""
        idx, val = self.text_features(text)
        emb = np.zeros(EMBEDDING_DIM)
        if embedding is not None and len(embedding) == EMBEDDING_DIM:
            emb = np.asarray(embedding, dtype=np.float64)
            if not np.all(np.isfinite(emb)):
                emb = np.zeros(EMBEDDING_DIM)
        emb = emb * self.embedding_weight
        out: dict[str, dict[str, float]] = {}
        for name, head in self.heads.items():
            probs = head.probabilities(idx, val, emb, self.vocab_size)
            out[name] = {cls: float(p) for cls, p in zip(head.classes, probs, strict=True)}
        return out

    def assess(self, text: str, embedding: Sequence[float] | None = None) -> Assessment:
        probs = self.raw_probabilities(text, embedding)
        # A crisis when the pooled head says so, or the suicide head does on its own (its threshold is
        # set for full recall); the line comes from the category head, trained on crises only.
        crisis_thresholds: dict[str, float] = self.thresholds["crisis"]
        # A message of a few words gives the n-gram heads little to go on and they over-reach on it
        # ("hey", "y cuanto tarda"): below `words` the thresholds chosen for short dev messages apply.
        short = self.thresholds.get("crisis_short")
        if short and word_count(text) <= int(short["words"]):
            crisis_thresholds = short
        p_any, p_suicide = probs["crisis_any"]["yes"], probs["crisis_suicide"]["yes"]
        categories = probs["crisis_category"]
        crisis = _decide(p_any, p_suicide, categories, crisis_thresholds)
        # On a later turn after no crisis the heads over-reach on follow-ups and place statements: the stricter
        # of these thresholds and the later-turn ones chosen on the dev conversations apply there.
        later = self.thresholds.get("crisis_later")
        crisis_later = crisis
        if later:
            stricter = {key: max(float(crisis_thresholds[key]), float(later[key])) for key in ("any", SUICIDE)}
            crisis_later = _decide(p_any, p_suicide, categories, stricter)
        crisis_probs = {"any": p_any, SUICIDE + "_head": p_suicide, **{c: p_any * q for c, q in categories.items()}}
        need_probs = probs.get("need", {})
        ranked = tuple(sorted(need_probs.items(), key=lambda item: (-item[1], item[0])))
        top_need, need_p = ranked[0] if ranked else (None, 0.0)
        flag_probs = {name.removeprefix("flag_"): p["yes"] for name, p in probs.items() if name.startswith("flag_")}
        flag_thresholds: dict[str, float] = self.thresholds["flags"]
        flags = tuple(sorted(tag for tag, p in flag_probs.items() if p >= flag_thresholds[tag]))
        return Assessment(
            crisis=crisis,
            crisis_probability=max(p_any, p_suicide),
            crisis_probs=crisis_probs,
            top_need=top_need,
            need_probability=need_p,
            need_sure=need_p >= float(self.thresholds["need"]),
            need_ranked=ranked,
            flags=flags,
            flag_probs=flag_probs,
            flag_thresholds={tag: float(flag_thresholds[tag]) for tag in flag_probs},
            version=self.version,
            available=True,
            crisis_later=crisis_later,
            carry_threshold=float(self.thresholds.get("crisis_carry", CARRY_MIN_MODEL_PROBABILITY)),
        )


def _decide(p_any: float, p_suicide: float, categories: dict[str, float], thresholds: dict[str, Any]) -> str:
    """A crisis when the pooled head says so (its line from the category head), or the suicide head on its own."""
    if p_any >= float(thresholds["any"]):
        return max(categories, key=lambda c: (categories[c], c))
    if p_suicide >= float(thresholds[SUICIDE]):
        return SUICIDE
    return NONE


def load(directory: Path = ARTIFACT_DIR) -> MessageModel | None:
    """Read an artifact from disk; None when there is none (the rules then decide alone)."""
    meta_path, array_path = directory / f"{ARTIFACT_NAME}.json", directory / f"{ARTIFACT_NAME}.npz"
    if not meta_path.is_file() or not array_path.is_file():
        return None
    meta = json.loads(meta_path.read_text(encoding="utf-8"))
    with np.load(array_path, allow_pickle=False) as data:
        arrays = {key: data[key] for key in data.files}
    return MessageModel(meta, arrays)


_model: MessageModel | None = None
_loaded = False
_lock = threading.Lock()


def get_model() -> MessageModel | None:
    """The process's model, loaded on first use."""
    global _model, _loaded  # noqa: PLW0603 - one artifact per process, loaded lazily
    if not _loaded:
        with _lock:
            if not _loaded:
                try:
                    _model = load()
                except Exception:  # a corrupt artifact must not take the hooks down: the rules decide
                    logger.exception("message model artifact could not be loaded")
                    _model = None
                _loaded = True
    return _model


def assess(text: object, embedding: Sequence[float] | None = None) -> Assessment:
    """Score one redacted message; never raises (an unavailable assessment on any failure)."""
    if not isinstance(text, str) or not text.strip():
        return UNAVAILABLE
    model = get_model()
    if model is None:
        return UNAVAILABLE
    try:
        return model.assess(text, embedding)
    except Exception:
        logger.exception("message model failed on a message")
        return UNAVAILABLE
