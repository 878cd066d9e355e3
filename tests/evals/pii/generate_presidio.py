"""Make presidio_sentences.jsonl with Microsoft's presidio-evaluator sentence generator (its templates, its fake values).

Dev-only and run once; the output is frozen in SHA256SUMS. presidio-evaluator pulls pandas, plotly and
transformers, so it is kept out of the app's venv: install it to a side folder and point at it, e.g.

    pip install --no-deps --target /tmp/pev_site -r tests/evals/pii/requirements-generate.txt
    PEV_SITE=/tmp/pev_site python tests/evals/pii/generate_presidio.py
"""

from __future__ import annotations

import json
import os
import random
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
COUNT = 600
SEED = 21


def main() -> None:
    if os.environ.get("PEV_SITE"):
        sys.path.insert(0, os.environ["PEV_SITE"])
    from presidio_evaluator.data_generator import PresidioSentenceFaker

    random.seed(SEED)
    faker = PresidioSentenceFaker(locale="en_US", lower_case_ratio=0.05, random_seed=SEED)
    records = faker.generate_new_fake_sentences(COUNT)
    with open(HERE / "presidio_sentences.jsonl", "w", encoding="utf-8") as handle:
        for i, record in enumerate(records):
            spans = sorted(
                (
                    {"type": s.entity_type, "value": s.entity_value, "start": s.start_position, "end": s.end_position}
                    for s in record.spans
                ),
                key=lambda s: s["start"],
            )
            row = {"id": f"pe-{i:03d}", "template_id": record.template_id, "text": record.full_text, "pii": spans}
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
