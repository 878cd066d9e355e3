"""Train and judge the answerability gate on question sets kept apart from each other.

- train: corpus/data/train_questions.jsonl and the older tests/evals/retrieval_dev.jsonl;
- train_texting / dev_texting: answerable and unanswerable questions worded the way people text,
  by a third author who never saw a blind set;
- dev: corpus/data/dev_questions.jsonl and dev_texting.jsonl, used only to choose the threshold;
- blind, blind2, blind3, blind4: written by authors who saw only the entries' titles and summaries, frozen
  (BLIND.sha256) before any tuning; reported on, never trained or tuned on.
Each question is retrieved once; features and labels come from that one retrieval. Deterministic.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import numpy as np
from django.conf import settings

from audit.stats import rate_json
from corpus import answerability, embeddings, retrieval
from corpus.evaluation import Question, dev_set_read
from corpus.types import CATEGORIES
from corpus.wiring import NeedFor, own_case_resolver

DATA_DIR: Final = Path(__file__).resolve().parent / "data"
TRAIN_FILES: Final = (
    DATA_DIR / "train_questions.jsonl",
    DATA_DIR / "train_texting.jsonl",
    Path(settings.BASE_DIR) / "tests" / "evals" / "retrieval_dev.jsonl",
)
DEV_FILES: Final = (DATA_DIR / "dev_questions.jsonl", DATA_DIR / "dev_texting.jsonl")
BLIND_FILE: Final = DATA_DIR / "blind_questions.jsonl"
BLIND2_FILE: Final = DATA_DIR / "blind2_questions.jsonl"
BLIND3_FILE: Final = DATA_DIR / "blind3_questions.jsonl"
BLIND4_FILE: Final = DATA_DIR / "blind4_questions.jsonl"
# The first blind set was read four times while the gate was tuned, so it stopped being blind; the
# second and third were read while tuning too; the fourth, by a new author, frozen before the gate was
# tuned again, is the one reported on.
BLIND_SETS: Final[dict[str, Path]] = {
    "blind": BLIND_FILE,
    "blind2": BLIND2_FILE,
    "blind3": BLIND3_FILE,
    "blind4": BLIND4_FILE,
}
BLIND_HASHES: Final = DATA_DIR / "BLIND.sha256"
SEED: Final = 20261201
C: Final = 1.0
FOLDS: Final = 5
TARGET_BLOCKED: Final = 0.10  # answerable questions the gate may block
TARGET_HANDOFF: Final = 0.90  # unanswerable questions it must hand off
K: Final = 5
# The targets (`make validate`).
FLOORS: Final[dict[str, dict[str, tuple[str, float]]]] = {
    "goal": {
        "recall_at_5": (">=", 0.95),
        "recall_at_5_es": (">=", 0.90),
        "unanswerable_handed_off": (">=", 0.90),
        "answerable_blocked": ("<=", 0.10),
    },
}
# What `make test` holds the shipped gate to, per blind set and view (plain search; as the workflow
# searches): a reading less a margin of about one question in fifty. The first three sets' floors were
# set on ag-221a2e06c3e8 (2026-12-01) and still hold for ag-37cafd74580e (re-read 2026-12-02: blind read 7,
# blind2 read 4, blind3 read 3); blind4's on its own second reading.
REGRESSION_FLOORS: Final[dict[str, dict[str, dict[str, tuple[str, float]]]]] = {
    "blind": {
        "search": {
            "recall_at_5": (">=", 0.94),
            "recall_at_5_es": (">=", 0.92),
            "unanswerable_handed_off": (">=", 0.94),
            "answerable_blocked": ("<=", 0.08),
        },
        "workflow": {
            "recall_at_5": (">=", 0.92),
            "recall_at_5_es": (">=", 0.92),
            "unanswerable_handed_off": (">=", 0.94),
            "answerable_blocked": ("<=", 0.08),
        },
    },
    "blind2": {
        "search": {
            "recall_at_5": (">=", 0.93),
            "recall_at_5_es": (">=", 0.91),
            "unanswerable_handed_off": (">=", 0.85),
            "answerable_blocked": ("<=", 0.16),
        },
        "workflow": {
            "recall_at_5": (">=", 0.89),
            "recall_at_5_es": (">=", 0.85),
            "unanswerable_handed_off": (">=", 0.85),
            "answerable_blocked": ("<=", 0.16),
        },
    },
    "blind3": {
        "search": {
            "recall_at_5": (">=", 0.95),
            "recall_at_5_es": (">=", 0.95),
            "unanswerable_handed_off": (">=", 0.86),
            "answerable_blocked": ("<=", 0.11),
        },
        "workflow": {
            "recall_at_5": (">=", 0.93),
            "recall_at_5_es": (">=", 0.92),
            "unanswerable_handed_off": (">=", 0.86),
            "answerable_blocked": ("<=", 0.09),
        },
    },
    # blind4, read 2 (ag-37cafd74580e with intake's own-case probability as a feature, 2026-12-02).
    "blind4": {
        "search": {
            "recall_at_5": (">=", 0.98),
            "recall_at_5_es": (">=", 0.97),
            "unanswerable_handed_off": (">=", 0.89),
            "answerable_blocked": ("<=", 0.06),
        },
        # Spanish 0.95, not 0.96: with the ninth session's message model (mm-fdc0f8b52c3e, retrained without the
        # eight rows that repeat blind9) the workflow's need for one Spanish question changed and its entry fell out
        # of the top five (0.953).
        "workflow": {
            "recall_at_5": (">=", 0.97),
            "recall_at_5_es": (">=", 0.95),
            "unanswerable_handed_off": (">=", 0.89),
            "answerable_blocked": ("<=", 0.04),
        },
    },
}


def question_key(text: str) -> str:
    """Case- and spacing-blind text of a question: how a training copy of a blind question is found."""
    return " ".join(text.lower().split())


def floor_misses(figures: dict[str, Any], floors: dict[str, tuple[str, float]]) -> list[str]:
    """One line per figure that misses its floor."""
    misses = []
    for key, (op, bound) in floors.items():
        value = figures[key]["rate"]
        if value is None or not (value >= bound if op == ">=" else value <= bound):
            misses.append(f"{key} = {value} (floor {op} {bound})")
    return misses


@dataclass(frozen=True)
class Observed:
    """One retrieval of one question: its top slugs, the gate's inputs and whether its evidence answers it."""

    question: Question
    top_slugs: tuple[str, ...]
    assertable_top: tuple[str, ...]
    values: tuple[float, ...]
    answered: bool  # answerable and a relevant entry is among the evidence the draft may use
    filtered: bool = False  # searched within intake's need (the workflow's first search)


def _observe_one(
    question: Question,
    text: str,
    category: str | None,
    need: str | None,
    *,
    exclude: str | None = None,
    own_case: float | None = None,
) -> Observed:
    params = retrieval.calibration()
    candidates = retrieval.candidates_for(text=text, category=category)
    vector = embeddings.embed_one(retrieval.query_for_index(text))
    scored = retrieval.ranked(
        candidates, leg="hybrid", language=question.language, params=params, vector=vector, exclude=exclude
    )
    top = [candidate.row["slug"] for candidate, _score in scored[:K]]
    assertable = [candidate.row["slug"] for candidate, _score in scored[:K] if candidate.row["assertable"]][
        : answerability.TOP
    ]
    values = answerability.features(
        text=text,
        language=question.language,
        category=category,
        scored=scored,
        other_state=retrieval.mentions_other_state(text),
        need=need,
        vector=vector,
        exclude=exclude,
        own_case=own_case,
    )
    answered = question.answerable and any(slug in question.slugs for slug in assertable)
    return Observed(question, tuple(top), tuple(assertable), tuple(values), answered, filtered=category is not None)


def observe(
    questions: Iterable[Question], need_for: NeedFor | None = None, *, leave_out: bool = False
) -> list[tuple[Observed, Observed | None]]:
    """Retrieve each question over every category and, when intake names a need, within it too.

    `leave_out`: the questions are the exemplars themselves (training), so each is compared with
    every exemplar but its own.
    """
    out: list[tuple[Observed, Observed | None]] = []
    own_case_for = own_case_resolver()
    for question in questions:
        text, _warnings = retrieval.clean_query(question.text)
        need = need_for(text) if need_for else None
        need = need if need in CATEGORIES and need != "other" else None
        exclude = question.id if leave_out else None
        own_case = own_case_for(text) if own_case_for else None
        wide = _observe_one(question, text, None, need, exclude=exclude, own_case=own_case)
        narrow = _observe_one(question, text, need, need, exclude=exclude, own_case=own_case) if need else None
        out.append((wide, narrow))
    return out


def exemplars_build(questions: Sequence[Question]) -> str:
    """Embed the training questions as retrieval embeds a query and store them; return their hash."""
    texts = [retrieval.clean_query(q.text)[0] for q in questions]
    return answerability.exemplars_write(
        [embeddings.embed_one(retrieval.query_for_index(t)) for t in texts],
        [q.id for q in questions],
        [q.slugs for q in questions],
        [q.answerable for q in questions],
    )


def workflow_view(pairs: Sequence[tuple[Observed, Observed | None]], gate: answerability.Gate | None) -> list[Observed]:
    """What the retrieve node ends with: the search within the need, widened when its gate closes."""
    chosen: list[Observed] = []
    for wide, narrow in pairs:
        if narrow is not None and gate is not None and _probability(gate, narrow) >= gate.threshold:
            chosen.append(narrow)
        else:
            chosen.append(wide)
    return chosen


def verify_blind() -> None:
    """Refuse to report on a blind file that is not byte-for-byte the frozen one."""
    for line in BLIND_HASHES.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            digest, name = line.split()
            if hashlib.sha256((DATA_DIR / name).read_bytes()).hexdigest() != digest:
                raise ValueError(f"{name} does not match its frozen hash: the blind set must not change")


def fit(
    train_pairs: Sequence[tuple[Observed, Observed | None]], dev_pairs: Sequence[tuple[Observed, Observed | None]]
) -> dict[str, Any]:
    """Fit the calibrated logistic gate on train (both searches of each question); choose its threshold on
    dev the way the workflow decides; return the artifact."""
    train = [o for pair in train_pairs for o in pair if o is not None]
    from sklearn.calibration import CalibratedClassifierCV
    from sklearn.linear_model import LogisticRegression

    x = np.asarray([o.values for o in train], dtype=np.float64)
    y = np.asarray([int(o.answered) for o in train])
    mean, scale = x.mean(axis=0), x.std(axis=0)
    scale[scale == 0] = 1.0
    model = CalibratedClassifierCV(
        LogisticRegression(C=C, max_iter=2000, random_state=SEED), method="sigmoid", cv=FOLDS, ensemble=False
    )
    model.fit((x - mean) / scale, y)
    fitted = model.calibrated_classifiers_[0]
    payload: dict[str, Any] = {
        "features": list(answerability.FEATURES),
        "mean": [round(float(v), 8) for v in mean],
        "scale": [round(float(v), 8) for v in scale],
        "coef": [round(float(v), 8) for v in fitted.estimator.coef_[0]],
        "intercept": round(float(fitted.estimator.intercept_[0]), 8),
        "cal_a": round(float(fitted.calibrators[0].a_), 8),
        "cal_b": round(float(fitted.calibrators[0].b_), 8),
        "threshold": 0.5,
        "version": "",
    }
    payload["threshold"] = choose_threshold(dev_pairs, payload)
    payload["training"] = {
        "train_searches": len(train),
        "dev_questions": len(dev_pairs),
        "seed": SEED,
        "C": C,
        "folds": FOLDS,
        "label": "answerable and a labelled entry among the top assertable hits the draft may use",
    }
    payload["version"] = answerability.version_of(payload)
    return payload


def _probability(gate: answerability.Gate, observed: Observed) -> float:
    return gate.probability(observed.values) if observed.assertable_top else 0.0


def choose_threshold(pairs: Sequence[tuple[Observed, Observed | None]], payload: dict[str, Any]) -> float:
    """The threshold that hands off the most unanswerable questions while blocking <= 10 % of answerable ones,
    judged on what the workflow ends with; without such a threshold, the best (handed off - blocked)."""
    best: tuple[float, float] | None = None
    fallback: tuple[float, float] | None = None
    for step in range(1, 100):
        threshold = step / 100
        gate = answerability.gate_from_json({**payload, "threshold": threshold})
        final = workflow_view(pairs, gate)
        blocked = _share([_probability(gate, o) < threshold for o in final if o.question.answerable])
        handoff = _share([_probability(gate, o) < threshold for o in final if not o.question.answerable])
        if blocked <= TARGET_BLOCKED and (best is None or handoff > best[0] + 1e-9):
            best = (handoff, threshold)
        if fallback is None or handoff - blocked > fallback[0] + 1e-9:
            fallback = (handoff - blocked, threshold)
    chosen = best or fallback
    return chosen[1] if chosen else 0.5


def _share(flags: Sequence[bool]) -> float:
    return sum(flags) / len(flags) if flags else 0.0


def report(
    observed: Sequence[Observed],
    gate: answerability.Gate | None,
    handed_off_first: Callable[[Question], bool] | None = None,
) -> dict[str, Any]:
    """The issue's table: recall@5 (all, en, es), unanswerable handed off, answerable blocked; Wilson 95 %.

    `handed_off_first`: intake hands the question to a person before the gate sees it (the whole
    workflow's view); it counts as handed off, and as blocked when the question was answerable.
    """

    def gated(o: Observed) -> bool:
        if handed_off_first is not None and handed_off_first(o.question):
            return True
        if gate is None:
            return True
        return _probability(gate, o) < gate.threshold

    answerable = [o for o in observed if o.question.answerable]
    unanswerable = [o for o in observed if not o.question.answerable]

    def recall(rows: Sequence[Observed]) -> dict[str, object]:
        return rate_json(sum(1 for o in rows if any(s in o.question.slugs for s in o.top_slugs)), len(rows))

    out: dict[str, Any] = {
        "questions": len(observed),
        "recall_at_5": recall(answerable),
        "recall_at_5_en": recall([o for o in answerable if o.question.language == "en"]),
        "recall_at_5_es": recall([o for o in answerable if o.question.language == "es"]),
        "unanswerable_handed_off": rate_json(sum(1 for o in unanswerable if gated(o)), len(unanswerable)),
        "answerable_blocked": rate_json(sum(1 for o in answerable if gated(o)), len(answerable)),
    }
    for language in ("en", "es"):
        subset_a = [o for o in answerable if o.question.language == language]
        subset_u = [o for o in unanswerable if o.question.language == language]
        out[f"unanswerable_handed_off_{language}"] = rate_json(sum(1 for o in subset_u if gated(o)), len(subset_u))
        out[f"answerable_blocked_{language}"] = rate_json(sum(1 for o in subset_a if gated(o)), len(subset_a))
    kinds: dict[str, Any] = {}
    for kind in sorted({o.question.kind for o in unanswerable}):
        rows = [o for o in unanswerable if o.question.kind == kind]
        kinds[kind or "unlabelled"] = rate_json(sum(1 for o in rows if gated(o)), len(rows))
    out["handed_off_by_kind"] = kinds
    return out


def read(path: Path) -> list[Question]:
    return dev_set_read(path)


def read_all(paths: Iterable[Path]) -> list[Question]:
    """Questions of every file that exists (a set not yet written is simply absent)."""
    return [q for path in paths if path.is_file() for q in dev_set_read(path)]


def write_artifact(payload: dict[str, Any], path: Path = answerability.ARTIFACT_PATH) -> Path:
    path.write_text(json.dumps(payload, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    answerability.gate.cache_clear()
    return path
