"""Build the frozen PII evaluation files from the hand-written sources: `python tests/evals/pii/build_pii_set.py`.

pii_set.src.txt   -> pii_set.jsonl   (text, language, split, pii: [{type, value, start, end}])
hard_negatives.txt + ordinary train messages -> non_pii.jsonl (text, language, source)

Rows whose index is a multiple of 4 form the `dev` split (the only part looked at while tuning the
patterns); the rest is `test`. SHA256SUMS freezes the outputs: test_pii_eval checks it.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
MARK = re.compile(r"\[\[([A-Z]+)\|(.+?)\]\]")
TRAIN = ROOT / "conversations" / "safety" / "data" / "train.jsonl"
ORDINARY_SAMPLE = 500


def _lines(path: Path) -> list[tuple[str, str]]:
    out = []
    for raw in path.read_text(encoding="utf-8").splitlines():
        if not raw.strip() or raw.startswith("#"):
            continue
        language, text = raw.split("|", 1)
        out.append((language, text))
    return out


def parse(marked: str) -> tuple[str, list[dict[str, object]]]:
    """Text without the marks, and each marked value with its type and character span."""
    parts: list[str] = []
    spans: list[dict[str, object]] = []
    last = 0
    length = 0
    for m in MARK.finditer(marked):
        before = marked[last : m.start()]
        parts.append(before)
        length += len(before)
        value = m.group(2)
        spans.append({"type": m.group(1), "value": value, "start": length, "end": length + len(value)})
        parts.append(value)
        length += len(value)
        last = m.end()
    parts.append(marked[last:])
    return "".join(parts), spans


def build() -> None:
    rows = []
    for i, (language, marked) in enumerate(_lines(HERE / "pii_set.src.txt")):
        text, spans = parse(marked)
        assert all(text[s["start"] : s["end"]] == s["value"] for s in spans)  # type: ignore[misc]
        rows.append(
            {
                "id": f"pii-{i:03d}",
                "language": language,
                "split": "dev" if i % 4 == 0 else "test",
                "text": text,
                "pii": spans,
            }
        )
    ordinary = []
    for i, (language, text) in enumerate(_lines(HERE / "hard_negatives.txt")):
        ordinary.append({"id": f"neg-{i:03d}", "language": language, "source": "hard_negative", "text": text})
    train = [json.loads(line) for line in TRAIN.read_text(encoding="utf-8").splitlines() if line.strip()]
    clean = [r for r in train if not r["pii_values"]]
    for r in random.Random(21).sample(clean, ORDINARY_SAMPLE):
        ordinary.append({"id": r["id"], "language": r["language"], "source": "safety_train", "text": r["text"]})
    for name, items in (("pii_set.jsonl", rows), ("non_pii.jsonl", ordinary)):
        with open(HERE / name, "w", encoding="utf-8") as handle:
            for item in items:
                handle.write(json.dumps(item, ensure_ascii=False) + "\n")


def freeze(
    names: tuple[str, ...] = (
        "pii_set.jsonl",
        "non_pii.jsonl",
        "presidio_sentences.jsonl",
        "presidio_sentences2.jsonl",
    ),
) -> None:
    lines = []
    for name in names:
        path = HERE / name
        if path.exists():
            lines.append(f"{hashlib.sha256(path.read_bytes()).hexdigest()}  {name}")
    (HERE / "SHA256SUMS").write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    build()
    freeze()
