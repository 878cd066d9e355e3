"""The answerability gate: may the retrieved evidence be asserted, or must the navigator hand off?

A single score floor tuned on the corpus author's own questions could not tell "weakly phrased
but answerable" from "not in the corpus". This gate is a small calibrated classifier over what
retrieval itself observed: fused scores and their margin, each leg's score and rank, whether the
legs agree, how consistent the top hits' categories are, whether intake's need filtered the
search, the question's length, language, another state named, and own-case wording. It is
trained by `manage.py corpus train-gate` (scikit-learn, deterministic) on questions kept apart
from the frozen blind set, and read here as plain numbers: no model call, no sklearn at run time.
"""

from __future__ import annotations

import hashlib
import io
import json
import math
import re
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Final

import numpy as np

from vocab import fold

ARTIFACT_PATH: Final = Path(__file__).resolve().parent / "answerability.json"
# The training questions' query vectors, their labelled entries and whether they are answerable: a
# chatty question far from every entry's wording can still sit close to a training question that
# the entry answers, and an own-case or out-of-scope one close to questions it could not.
EXEMPLARS_PATH: Final = Path(__file__).resolve().parent / "answerability_exemplars.npz"
TOP: Final = 3  # hits the draft may use

# Asking what to do in one's own case, or for a prediction: the corpus states rules, it cannot answer these.
_OWN_CASE: Final = re.compile(
    r"\b(?:should i|do you think|will i|am i going to|gonna get|what are my chances|my lawyer|my case|my judge|"
    r"guarantee|deberia|crees que|voy a (?:salir|ganar|perder)|me van a|mi caso|mi abogado|mi juez|garantiza|"
    r"will (?:they|the board|the judge|my po|\w+) (?:approve|let me|deny|give me|accept)|me (?:van a )?aprueban?)\b"
)
FEATURES: Final = (
    "top_fused",
    "second_fused",
    "fused_margin",
    "top_similarity",
    "similarity_margin",
    "max_similarity",
    "top_coverage",
    "max_coverage_top3",
    "top_lexical_inv_rank",
    "top_semantic_inv_rank",
    "legs_agree",
    "semantic_only_top",
    "category_agreement",
    "category_given",
    "need_matches_top",
    "query_words",
    "spanish",
    "other_state",
    "own_case",
    "top_assertable",
    "known_vocabulary",
    "unknown_words",
    "exemplar_top_entry",
    "exemplar_top3_entries",
    "exemplar_unanswerable",
    "exemplar_margin",
    "intake_own_case",
)


class Exemplars:
    """Unit query vectors of the training questions with their ids, labelled slugs and answerability.

    The row indices per slug, per id and of the unanswerable questions are built once when loaded, so
    a query costs one matrix product and a few index lookups.
    """

    def __init__(
        self, vectors: np.ndarray, ids: Sequence[str], slugs: Sequence[frozenset[str]], answerable: np.ndarray
    ) -> None:
        self.vectors = vectors  # (n, dim) float32, rows of unit length
        self._row_of_id = {identifier: row for row, identifier in enumerate(ids)}
        rows_by_slug: dict[str, list[int]] = {}
        for row, labelled in enumerate(slugs):
            for slug in labelled:
                rows_by_slug.setdefault(slug, []).append(row)
        self._rows_by_slug = {slug: np.asarray(rows) for slug, rows in rows_by_slug.items()}
        self._unanswerable = np.flatnonzero(~np.asarray(answerable, dtype=bool))

    def _cosines(self, vector: Sequence[float], exclude: str | None) -> np.ndarray | None:
        """The query's cosine to every exemplar, `exclude` (a training question's own row) set to -1."""
        query = np.asarray(vector, dtype=np.float32)
        norm = float(np.linalg.norm(query))
        if norm == 0.0 or not len(self.vectors):
            return None
        sims = self.vectors @ (query / norm)
        if exclude is not None and exclude in self._row_of_id:
            sims[self._row_of_id[exclude]] = -1.0
        return sims

    def similarities(
        self, vector: Sequence[float], *, slugs: Sequence[str], exclude: str | None
    ) -> tuple[float, float, float]:
        """Best cosine to a question labelled with slugs[0], with any of `slugs`, and to an unanswerable one."""
        sims = self._cosines(vector, exclude)
        if sims is None:
            return 0.0, 0.0, 0.0

        def best(rows: np.ndarray) -> float:
            return max(float(sims[rows].max()), 0.0) if rows.size else 0.0

        empty = np.asarray([], dtype=int)
        first = self._rows_by_slug.get(slugs[0], empty) if slugs else empty
        wanted = [self._rows_by_slug[slug] for slug in dict.fromkeys(slugs) if slug in self._rows_by_slug]
        return best(first), best(np.unique(np.concatenate(wanted)) if wanted else empty), best(self._unanswerable)

    def best_by_slug(self, vector: Sequence[float], slugs: Sequence[str], exclude: str | None) -> dict[str, float]:
        """Best cosine of the query to a training question labelled with each slug (0 when none is)."""
        sims = self._cosines(vector, exclude)
        if sims is None:
            return dict.fromkeys(slugs, 0.0)
        out = {}
        for slug in slugs:
            rows = self._rows_by_slug.get(slug)
            out[slug] = max(float(sims[rows].max()), 0.0) if rows is not None and rows.size else 0.0
        return out


def exemplars_write(
    vectors: Sequence[Sequence[float]],
    ids: Sequence[str],
    slugs: Sequence[Sequence[str]],
    answerable: Sequence[bool],
    path: Path = EXEMPLARS_PATH,
) -> str:
    """Store the exemplars (float16, deterministic bytes); return their sha256 for the gate's version."""
    matrix = np.asarray(vectors, dtype=np.float32)
    matrix /= np.maximum(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-12)
    arrays = {
        "vectors": matrix.astype(np.float16),
        "ids": np.asarray(list(ids), dtype=str),
        "slugs": np.asarray(["|".join(sorted(s)) for s in slugs], dtype=str),
        "answerable": np.asarray(list(answerable), dtype=bool),
    }
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for key in sorted(arrays):
            info = zipfile.ZipInfo(f"{key}.npy", date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            item = io.BytesIO()
            np.lib.format.write_array(item, arrays[key], allow_pickle=False)
            archive.writestr(info, item.getvalue())
    path.write_bytes(buffer.getvalue())
    exemplars.cache_clear()
    return hashlib.sha256(buffer.getvalue()).hexdigest()


@lru_cache(maxsize=1)
def exemplars() -> Exemplars | None:
    """The shipped exemplars, read once per process; None when absent (their features read 0)."""
    if not EXEMPLARS_PATH.is_file():
        return None
    with np.load(EXEMPLARS_PATH, allow_pickle=False) as stored:
        return Exemplars(
            vectors=stored["vectors"].astype(np.float32),
            ids=tuple(str(i) for i in stored["ids"]),
            slugs=tuple(frozenset(filter(None, str(s).split("|"))) for s in stored["slugs"]),
            answerable=stored["answerable"].astype(bool),
        )


def features(
    *,
    text: str,
    language: str,
    category: str | None,
    scored: Sequence[tuple[Any, float]],
    other_state: bool,
    need: str | None = None,
    vector: Sequence[float] | None = None,
    exclude: str | None = None,
    own_case: float | None = None,
) -> list[float]:
    """The classifier's inputs for one question, from its fused, ranked candidates (best first).

    `category` is the filter the search ran with; `need` is intake's need for the question (the
    same as the filter on the first search, kept when the search is widened to every category).
    `vector` is the question's query embedding; `exclude` leaves one training question out of the
    exemplars while the gate is trained on it. `own_case` is intake's probability that the question
    asks for advice on the writer's own matter or an outcome (0 when intake did not say).
    """
    need = need or category
    top = [candidate for candidate, _score in scored[:TOP]]
    first = top[0] if top else None
    fused = [score * 60.0 for _candidate, score in scored[:2]] + [0.0, 0.0]
    sims = [candidate.similarity for candidate in top] + [0.0, 0.0]
    categories = [candidate.row["category"] for candidate in top]
    words = len(text.split())
    stored = exemplars()
    near = (
        stored.similarities(vector, slugs=[c.row["slug"] for c in top if c.row["assertable"]] or [""], exclude=exclude)
        if stored is not None and vector is not None
        else (0.0, 0.0, 0.0)
    )
    values = {
        "top_fused": fused[0],
        "second_fused": fused[1],
        "fused_margin": fused[0] - fused[1],
        "top_similarity": sims[0],
        "similarity_margin": sims[0] - sims[1],
        "max_similarity": max((candidate.similarity for candidate, _score in scored), default=0.0),
        "top_coverage": first.coverage if first else 0.0,
        "max_coverage_top3": max((candidate.coverage for candidate in top), default=0.0),
        "top_lexical_inv_rank": 1.0 / first.lexical_rank if first and first.lexical_rank else 0.0,
        "top_semantic_inv_rank": 1.0 / first.semantic_rank if first and first.semantic_rank else 0.0,
        "legs_agree": 1.0 if first and (first.lexical_rank or 99) <= 3 and (first.semantic_rank or 99) <= 3 else 0.0,
        "semantic_only_top": 1.0 if first and first.lexical_rank is None else 0.0,
        "category_agreement": (categories.count(categories[0]) / len(categories)) if categories else 0.0,
        "category_given": 1.0 if category else 0.0,
        "need_matches_top": 1.0 if need and first and first.row["category"] == need else 0.0,
        "query_words": math.log1p(words),
        "spanish": 1.0 if language == "es" else 0.0,
        "other_state": 1.0 if other_state else 0.0,
        "own_case": 1.0 if _OWN_CASE.search(fold(text)) else 0.0,
        "top_assertable": 1.0 if first and first.row["assertable"] else 0.0,
        "known_vocabulary": _known_share(first.row) if first else 0.0,
        "unknown_words": float(min(_unknown(first.row, "en"), _unknown(first.row, "es"))) if first else 0.0,
        "exemplar_top_entry": near[0],
        "exemplar_top3_entries": near[1],
        "exemplar_unanswerable": near[2],
        "exemplar_margin": near[1] - near[2],
        "intake_own_case": float(own_case or 0.0),
    }
    return [float(values[name]) for name in FEATURES]


def _known_share(row: dict[str, Any]) -> float:
    shares = [
        float(row.get(f"{lang}_known") or 0) / float(row[f"{lang}_total"])
        for lang in ("en", "es")
        if row.get(f"{lang}_total")
    ]
    return max(shares, default=0.0)


def _unknown(row: dict[str, Any], lang: str) -> int:
    return int(row.get(f"{lang}_total") or 0) - int(row.get(f"{lang}_known") or 0)


@dataclass(frozen=True)
class Gate:
    """The trained gate: standardise, one logistic score, sigmoid calibration, a dev-chosen threshold."""

    mean: tuple[float, ...]
    scale: tuple[float, ...]
    coef: tuple[float, ...]
    intercept: float
    cal_a: float
    cal_b: float
    threshold: float
    version: str

    def probability(self, values: Sequence[float]) -> float:
        z = self.intercept + sum(
            c * ((v - m) / s if s else 0.0) for c, v, m, s in zip(self.coef, values, self.mean, self.scale, strict=True)
        )
        exponent = max(min(self.cal_a * z + self.cal_b, 50.0), -50.0)
        return 1.0 / (1.0 + math.exp(exponent))

    def as_json(self) -> dict[str, Any]:
        return {
            "features": list(FEATURES),
            "mean": list(self.mean),
            "scale": list(self.scale),
            "coef": list(self.coef),
            "intercept": self.intercept,
            "cal_a": self.cal_a,
            "cal_b": self.cal_b,
            "threshold": self.threshold,
            "version": self.version,
        }


def gate_from_json(payload: dict[str, Any]) -> Gate:
    if list(payload["features"]) != list(FEATURES):
        raise ValueError("answerability artifact was trained on other features: run `manage.py corpus train-gate`")
    return Gate(
        mean=tuple(payload["mean"]),
        scale=tuple(payload["scale"]),
        coef=tuple(payload["coef"]),
        intercept=float(payload["intercept"]),
        cal_a=float(payload["cal_a"]),
        cal_b=float(payload["cal_b"]),
        threshold=float(payload["threshold"]),
        version=str(payload["version"]),
    )


def version_of(payload: dict[str, Any]) -> str:
    body = {k: v for k, v in payload.items() if k not in ("version", "card")}
    return "ag-" + hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()[:12]


@lru_cache(maxsize=1)
def gate() -> Gate | None:
    """The shipped gate, read once per process; None when no artifact exists (the score floor decides)."""
    if not ARTIFACT_PATH.is_file():
        return None
    payload = json.loads(ARTIFACT_PATH.read_text(encoding="utf-8"))
    pinned = payload.get("exemplars_sha256")
    if pinned and (not EXEMPLARS_PATH.is_file() or hashlib.sha256(EXEMPLARS_PATH.read_bytes()).hexdigest() != pinned):
        raise ValueError(
            f"{EXEMPLARS_PATH.name} is not the one the gate was trained with: run `manage.py corpus train-gate`"
        )
    return gate_from_json(payload)
