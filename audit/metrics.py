"""Evaluate the compliance rules on a labelled dev set (tests/evals/audit_dev.jsonl).

Each line: {"id", "language", "kind", "draft", "evidence": [{slug, citation, url, assertable, summary}],
"context": {AuditContext fields}, "expected_verdict", "expected_rules": [...]}.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from audit.rules import check_draft
from audit.types import AuditContext, AuditResult, EvidenceRecord, Verdict


@dataclass(frozen=True)
class DevCase:
    """One labelled draft."""

    id: str
    language: str
    kind: str
    draft: str
    evidence: tuple[EvidenceRecord, ...]
    context: AuditContext
    expected_verdict: Verdict
    expected_rules: frozenset[str]


@dataclass(frozen=True)
class RuleScore:
    """Per-rule counts: how often it fired where expected (tp), where not (fp), and was missed (fn)."""

    tp: int = 0
    fp: int = 0
    fn: int = 0

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 1.0

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 1.0


@dataclass(frozen=True)
class DevSetReport:
    """Verdict accuracy overall and by kind/language, per-rule precision/recall, and the misses."""

    total: int
    verdict_accuracy: float
    accuracy_by_kind: dict[str, float]
    accuracy_by_language: dict[str, float]
    rules: dict[str, RuleScore]
    confusion: dict[str, dict[str, int]]
    failures: list[dict[str, Any]] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready form (the `--json OUT` output of `manage.py audit evaluate`)."""
        data = asdict(self)
        data["rules"] = {
            name: {**asdict(score), "recall": round(score.recall, 4), "precision": round(score.precision, 4)}
            for name, score in self.rules.items()
        }
        return data


def load_dev_set(path: str | Path) -> list[DevCase]:
    """Read the JSONL dev set into typed cases (fails loudly on a malformed line)."""
    cases = []
    for n, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            cases.append(
                DevCase(
                    id=row["id"],
                    language=row["language"],
                    kind=row["kind"],
                    draft=row["draft"],
                    evidence=tuple(EvidenceRecord(**e) for e in row["evidence"]),
                    context=AuditContext(**row["context"]),
                    expected_verdict=Verdict(row["expected_verdict"]),
                    expected_rules=frozenset(row["expected_rules"]),
                )
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"{path}:{n}: malformed dev case ({exc})") from None
    return cases


def run_case(case: DevCase) -> AuditResult:
    """Run the rules on one dev case."""
    return check_draft(draft=case.draft, evidence=case.evidence, context=case.context)


def _ratio(hits: int, total: int) -> float:
    return round(hits / total, 4) if total else 1.0


def evaluate(cases: Iterable[DevCase]) -> DevSetReport:
    """Score the rules against the labels."""
    cases = list(cases)
    by_kind: dict[str, list[bool]] = defaultdict(list)
    by_lang: dict[str, list[bool]] = defaultdict(list)
    counts: dict[str, Counter[str]] = defaultdict(Counter)
    confusion: dict[str, Counter[str]] = defaultdict(Counter)
    failures = []
    correct = 0
    for case in cases:
        result = run_case(case)
        ok = result.verdict == case.expected_verdict
        correct += ok
        by_kind[case.kind].append(ok)
        by_lang[case.language].append(ok)
        confusion[case.expected_verdict.value][result.verdict.value] += 1
        fired = result.rules
        for rule in fired | case.expected_rules:
            if rule in fired and rule in case.expected_rules:
                counts[rule]["tp"] += 1
            elif rule in fired:
                counts[rule]["fp"] += 1
            else:
                counts[rule]["fn"] += 1
        if not ok or fired != case.expected_rules:
            failures.append(
                {
                    "id": case.id,
                    "kind": case.kind,
                    "expected_verdict": case.expected_verdict.value,
                    "verdict": result.verdict.value,
                    "expected_rules": sorted(case.expected_rules),
                    "rules": sorted(fired),
                    "verdict_ok": ok,
                }
            )
    return DevSetReport(
        total=len(cases),
        verdict_accuracy=_ratio(correct, len(cases)),
        accuracy_by_kind={k: _ratio(sum(v), len(v)) for k, v in sorted(by_kind.items())},
        accuracy_by_language={k: _ratio(sum(v), len(v)) for k, v in sorted(by_lang.items())},
        rules={r: RuleScore(c["tp"], c["fp"], c["fn"]) for r, c in sorted(counts.items())},
        confusion={k: dict(v) for k, v in sorted(confusion.items())},
        failures=failures,
    )


def format_report(report: DevSetReport) -> str:
    """A short human-readable summary."""
    lines = [f"audit dev set: {report.total} drafts, verdict accuracy {report.verdict_accuracy:.3f}"]
    lines.append("  by language: " + ", ".join(f"{k} {v:.3f}" for k, v in report.accuracy_by_language.items()))
    lines.append("  by kind: " + ", ".join(f"{k} {v:.2f}" for k, v in report.accuracy_by_kind.items()))
    lines.append("  rule                 recall  precision  (tp/fp/fn)")
    for name, s in report.rules.items():
        lines.append(f"  {name:<20} {s.recall:6.3f}  {s.precision:9.3f}  ({s.tp}/{s.fp}/{s.fn})")
    lines.append("  confusion (expected → got): " + json.dumps(report.confusion, sort_keys=True))
    for f in report.failures:
        mark = "VERDICT" if not f["verdict_ok"] else "rules"
        lines.append(
            f"  miss[{mark}] {f['id']} {f['kind']}: expected {f['expected_verdict']} {f['expected_rules']}, "
            f"got {f['verdict']} {f['rules']}"
        )
    return "\n".join(lines)
