"""Make presidio_sentences.jsonl with Microsoft's presidio-evaluator sentence generator (its templates, its fake values).

Dev-only and run once; the output is frozen in SHA256SUMS. presidio-evaluator pulls pandas, plotly and
transformers, so it is kept out of the app's venv: install it to a side folder and point at it, e.g.

    pip install --no-deps --target /tmp/pev_site -r tests/evals/pii/requirements-generate.txt
    PEV_SITE=/tmp/pev_site python tests/evals/pii/generate_presidio.py

The frozen test set is the default (seed 21, presidio_sentences.jsonl). The dev set that redaction is
tuned on is another seed into another file, so the test sentences are never looked at:

    PEV_SITE=var/gen python tests/evals/pii/generate_presidio.py --seed 7 --out presidio_dev.jsonl
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
COUNT = 600
SEED = 21


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--count", type=int, default=COUNT)
    parser.add_argument("--out", default="presidio_sentences.jsonl", help="file name inside tests/evals/pii/")
    parser.add_argument("--prefix", default="pe", help="row id prefix")
    args = parser.parse_args()
    if os.environ.get("PEV_SITE"):
        sys.path.insert(0, os.environ["PEV_SITE"])
    from presidio_evaluator.data_generator import PresidioSentenceFaker

    random.seed(args.seed)
    faker = PresidioSentenceFaker(locale="en_US", lower_case_ratio=0.05, random_seed=args.seed)
    records = faker.generate_new_fake_sentences(args.count)
    with open(HERE / args.out, "w", encoding="utf-8") as handle:
        for i, record in enumerate(records):
            spans = sorted(
                (
                    {"type": s.entity_type, "value": s.entity_value, "start": s.start_position, "end": s.end_position}
                    for s in record.spans
                ),
                key=lambda s: s["start"],
            )
            row = {
                "id": f"{args.prefix}-{i:03d}",
                "template_id": record.template_id,
                "text": record.full_text,
                "pii": spans,
            }
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
