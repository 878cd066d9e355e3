"""Dev-set metrics for the hooks: the numbers the floors in the tests and the report command check.

The metric functions are pure (rows in, dict out) and take the hook as a parameter, so a test can
measure a deliberately broken detector and see the floor fail.
"""

from __future__ import annotations

import json
import re
import time
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Final

from conversations.hooks.crisis import CRISIS_CATEGORIES, CrisisResult, detect_crisis
from conversations.hooks.pii import Redaction, redact

__all__ = [
    "DEV_DIR",
    "TARGETS",
    "crisis_metrics",
    "latency_metrics",
    "load_jsonl",
    "pii_metrics",
]

DEV_DIR: Final = Path(__file__).resolve().parents[2] / "tests" / "evals"

TARGETS: Final = {
    "crisis_recall": 0.98,
    "suicide_recall": 1.0,
    "hard_negative_fpr_max": 0.05,
    "structured_pii_recall": 1.0,  # SSN, PHONE, EMAIL, TDCJ, SID, DOB
    "over_redaction_max": 0.02,
    "p95_ms_max": 2.0,
}
STRUCTURED_PII: Final = ("SSN", "PHONE", "EMAIL", "TDCJ", "SID", "DOB")
_TOKEN: Final = re.compile(r"\w+")


def load_jsonl(path: Path | str) -> list[dict[str, Any]]:
    """Read one JSON object per non-blank line."""
    with open(path, encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def _ratio(hits: int, total: int) -> float:
    return round(hits / total, 4) if total else 1.0


def crisis_metrics(
    rows: Iterable[Mapping[str, Any]],
    detector: Callable[[str], CrisisResult] = detect_crisis,
) -> dict[str, Any]:
    """Recall per category (strict: the right category) and overall (any crisis), and hard-negative FPR."""
    per_total: Counter[str] = Counter()
    per_hit: Counter[str] = Counter()
    any_hit = 0
    negatives = hard_negatives = false_pos = hard_false_pos = 0
    misses: list[str] = []
    false_alarms: list[str] = []
    for row in rows:
        result = detector(row["text"])
        label = row["category"]
        if label == "none":
            negatives += 1
            hard_negatives += bool(row.get("hard_negative"))
            if result.is_crisis:
                false_pos += 1
                hard_false_pos += bool(row.get("hard_negative"))
                false_alarms.append(row["id"])
            continue
        per_total[label] += 1
        any_hit += result.is_crisis
        if result.category == label:
            per_hit[label] += 1
        else:
            misses.append(row["id"])
    crises = sum(per_total.values())
    return {
        "messages": crises + negatives,
        "crises": crises,
        "hard_negatives": hard_negatives,
        "recall": _ratio(any_hit, crises),
        "category_accuracy": _ratio(sum(per_hit.values()), crises),
        "recall_by_category": {c: _ratio(per_hit[c], per_total[c]) for c in CRISIS_CATEGORIES if per_total[c]},
        "suicide_recall": _ratio(per_hit["suicide_self_harm"], per_total["suicide_self_harm"]),
        "hard_negative_fpr": _ratio(hard_false_pos, hard_negatives),
        "negative_fpr": _ratio(false_pos, negatives),
        "misses": misses,
        "false_alarms": false_alarms,
    }


def _surviving_tokens(original: str, values: Sequence[str], redacted: str) -> tuple[int, int]:
    """Count the non-PII tokens of `original` and how many of them are gone from `redacted`."""
    rest = original
    for value in values:
        rest = rest.replace(value, " ")
    expected = Counter(_TOKEN.findall(rest))
    remaining = Counter(_TOKEN.findall(redacted))
    lost = sum((expected - remaining).values())
    return sum(expected.values()), lost


def pii_metrics(
    rows: Iterable[Mapping[str, Any]],
    redactor: Callable[[str], Redaction] = redact,
) -> dict[str, Any]:
    """Recall per PII type (value gone), typed recall (right placeholder), kept-substring survival, over-redaction."""
    total: Counter[str] = Counter()
    removed: Counter[str] = Counter()
    typed: Counter[str] = Counter()
    keep_total = keep_ok = tokens = lost = messages = 0
    leaks: list[str] = []
    damaged: list[str] = []
    for row in rows:
        messages += 1
        text = row["text"]
        out = redactor(text).text
        for item in row["pii"]:
            kind, value = item["type"], item["value"]
            total[kind] += 1
            if value not in out:
                removed[kind] += 1
                typed[kind] += f"[{kind}]" in out
            else:
                leaks.append(f"{row['id']}:{kind}")
        for keep in row.get("keep", ()):
            keep_total += 1
            if keep in out:
                keep_ok += 1
            else:
                damaged.append(row["id"])
        n, gone = _surviving_tokens(text, [p["value"] for p in row["pii"]], out)
        tokens += n
        lost += gone
    structured = [k for k in STRUCTURED_PII if total[k]]
    return {
        "messages": messages,
        "values": sum(total.values()),
        "recall_by_type": {k: _ratio(removed[k], total[k]) for k in sorted(total)},
        "typed_recall_by_type": {k: _ratio(typed[k], total[k]) for k in sorted(total)},
        "structured_recall": _ratio(sum(removed[k] for k in structured), sum(total[k] for k in structured)),
        "keep_survival": _ratio(keep_ok, keep_total),
        "over_redaction": round(lost / tokens, 4) if tokens else 0.0,
        "leaks": leaks,
        "damaged_keeps": sorted(set(damaged)),
    }


def _percentiles(samples: list[float], prefix: str = "") -> dict[str, float]:
    if not samples:
        return {f"{prefix}p50_ms": 0.0, f"{prefix}p95_ms": 0.0, f"{prefix}max_ms": 0.0}
    ordered = sorted(samples)
    return {
        f"{prefix}p50_ms": round(ordered[len(ordered) // 2], 4),
        f"{prefix}p95_ms": round(ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))], 4),
        f"{prefix}max_ms": round(ordered[-1], 4),
    }


def redact_patterns(text: str) -> Redaction:
    """Redaction without the name model, the part the hooks' latency target covers."""
    return redact(text, ner=False)


def latency_metrics(
    texts: Sequence[str],
    rounds: int = 20,
    hooks: Sequence[Callable[[str], object]] | None = None,
) -> dict[str, float]:
    """Per-message cost of all hooks together, in ms, over `rounds` passes.

    By default the crisis check and the redaction patterns: the 2 ms target is theirs. The name
    model's cost (several ms a message) is measured by bench/bench_pii.py.

    `p95_ms` is thread CPU time: the hooks are pure computation, and on a shared machine wall time
    mostly measures other processes. Wall time is reported beside it as `wall_*`.
    """
    if hooks is None:
        hooks = (detect_crisis, redact_patterns)
    cpu: list[float] = []
    wall: list[float] = []
    for _ in range(rounds):
        for text in texts:
            began_cpu = time.thread_time()
            began = time.perf_counter()
            for hook in hooks:
                hook(text)
            wall.append((time.perf_counter() - began) * 1000)
            cpu.append((time.thread_time() - began_cpu) * 1000)
    return {**_percentiles(cpu), **_percentiles(wall, "wall_"), "samples": len(cpu)}
