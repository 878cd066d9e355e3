"""`manage.py safety train|evaluate|card|split`: the message model's reproducible pipeline."""

from __future__ import annotations

import hashlib
import itertools
import json
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from conversations.hooks import detect_crisis, message_model, redact
from conversations.safety import card, data, evaluate
from corpus import embeddings


class Command(BaseCommand):
    help = "Train, evaluate and describe the message model (crisis, need and hand-off heads)."

    def add_arguments(self, parser: CommandParser) -> None:
        sub = parser.add_subparsers(dest="action", required=True)
        split = sub.add_parser(
            "split", help="split training authors' files into train.jsonl and dev.jsonl (by id hash)"
        )
        split.add_argument("files", nargs="+")
        split.add_argument("--dev-share", type=float, default=0.15)
        sub.add_parser("train", help="train on train.jsonl, choose thresholds on dev.jsonl, write the artifact")
        ev = sub.add_parser("evaluate", help="judge rules + model + context on a labeled split")
        ev.add_argument("--split", choices=[*data.BLIND_SETS, "dev"], default="blind13")
        ev.add_argument("--report-dir", default=None, help="where the JSON/HTML report goes (default var/)")
        ev.add_argument("--no-floors", action="store_true", help="report only; do not fail below the floors")
        ev.add_argument(
            "--floors",
            choices=["goal", "regression"],
            default="goal",
            help="goal: the issue's targets (make validate); regression: the shipped model's own floor (make test)",
        )
        sub.add_parser("card", help="write MODEL_CARD.md from the artifact and the last blind report")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            getattr(self, f"_{options['action']}")(options)
        except data.DataError as exc:
            raise CommandError(str(exc)) from None

    def _split(self, options: dict[str, Any]) -> None:
        messages: list[data.Message] = []
        for name in options["files"]:
            messages.extend(data.read_messages(Path(name)))
        blind = data.every_blind_message()
        # A training message that happens to repeat a blind one is dropped from training, never the reverse.
        blind_keys = {data.text_key(m.text) for m in blind}
        dropped = sorted(m.id for m in messages if data.text_key(m.text) in blind_keys)
        messages = [m for m in messages if m.id not in dropped]
        if dropped:
            self.stdout.write(f"dropped {len(dropped)} training messages that repeat blind ones: {', '.join(dropped)}")
        share = float(options["dev_share"])
        train_rows: list[data.Message] = []
        dev_rows: list[data.Message] = []
        for message in sorted(messages, key=lambda m: m.id):
            bucket = int(hashlib.sha256(message.id.encode()).hexdigest()[:8], 16) / 0xFFFFFFFF
            (dev_rows if bucket < share else train_rows).append(message)
        for path, rows in ((data.TRAIN, train_rows), (data.DEV, dev_rows)):
            with path.open("w", encoding="utf-8") as handle:
                for m in rows:
                    handle.write(
                        json.dumps(
                            {
                                "id": m.id,
                                "text": m.text,
                                "channel": m.channel,
                                "language": m.language,
                                "crisis": m.crisis,
                                "top_need": m.top_need,
                                "region": m.region,
                                "expect": list(m.expect),
                                "pii_values": list(m.pii_values),
                            },
                            ensure_ascii=False,
                        )
                        + "\n"
                    )
        self.stdout.write(f"train {len(train_rows)}, dev {len(dev_rows)}")

    def _train(self, options: dict[str, Any]) -> None:
        from conversations.safety import train  # noqa: PLC0415 - scikit-learn and scipy load only to train

        train_rows, dev_rows = data.read_messages(data.TRAIN), data.read_messages(data.DEV)
        data.verify_blind()
        data.assert_disjoint(train_rows + dev_rows, data.every_blind_message())
        meta, arrays = train.train(
            train.prepare(train_rows, embeddings.embed_one),
            train.prepare(dev_rows, embeddings.embed_one),
            short_turns=train.prepare(_short_opening_turns(), embeddings.embed_one),
            flag_negatives=train.prepare(_flag_negatives(), embeddings.embed_one),
            later_turns=train.prepare(_later_turns(), embeddings.embed_one),
            carry_openers=train.prepare(_carry_openers(), embeddings.embed_one),
        )
        path = train.write_artifact(meta, arrays)
        self.stdout.write(f"wrote {path.name} ({meta['version']}): thresholds {json.dumps(meta['thresholds'])}")

    def _evaluate(self, options: dict[str, Any]) -> None:
        model = message_model.get_model()
        if model is None:
            raise CommandError("no message model artifact: run `manage.py safety train` first")
        judge = evaluate.Judge(embed=embeddings.embed_one)
        blind = options["split"] in data.BLIND_SETS
        if blind:
            data.verify_blind()
        if blind:
            message_file, conversation_file = data.BLIND_SETS[options["split"]]
            conversation_files = [conversation_file]
        else:
            message_file, conversation_files = (
                data.DEV,
                list(data.DEV_CONVERSATION_FILES),
            )
        messages = evaluate.message_metrics(judge.run_messages(data.read_messages(message_file)))
        turns = [
            o for path in conversation_files for c in data.read_conversations(path) for o in judge.run_conversation(c)
        ]
        conversations: dict[str, Any] | None = evaluate.conversation_metrics(turns)
        values = evaluate.headline_values(messages, conversations)
        report = {
            "split": options["split"],
            "model_version": model.version,
            "floors": evaluate.FLOORS,
            "headline": values,
            "messages": messages,
            "conversations": conversations,
            "blind_hashes": data.blind_hashes() if blind else None,
        }
        directory = Path(options["report_dir"]) if options["report_dir"] else Path(settings.BASE_DIR) / "var"
        json_path, html_path = evaluate.write_report(report, directory)
        for key, value in values.items():
            self.stdout.write(f"{key:32} {value}")
        self.stdout.write(f"report: {json_path} and {html_path}")
        floors = (
            evaluate.FLOORS
            if options["floors"] == "goal"
            else evaluate.REGRESSION_BY_SPLIT.get(options["split"], evaluate.REGRESSION_FLOORS)
        )
        failures = evaluate.check_floors(values, floors)
        if failures and not options["no_floors"]:
            raise CommandError(f"below the {options['floors']} floors: " + "; ".join(failures))

    def _card(self, options: dict[str, Any]) -> None:
        model = message_model.get_model()
        if model is None:
            raise CommandError("no message model artifact: run `manage.py safety train` first")
        report_path = Path(settings.BASE_DIR) / "var" / "safety_report.json"
        report = json.loads(report_path.read_text(encoding="utf-8")) if report_path.is_file() else None
        path = card.write_card(model.meta, report)
        self.stdout.write(f"wrote {path}")
        sets = {
            "train": data.read_messages(data.TRAIN),
            "dev": data.read_messages(data.DEV),
            "dev conversations (turns)": [
                t for path in data.DEV_CONVERSATION_FILES for c in data.read_conversations(path) for t in c
            ],
        }
        for name, (message_file, conversation_file) in data.BLIND_SETS.items():
            if message_file.is_file():
                sets[f"{name} messages"] = data.read_messages(message_file)
                sets[f"{name} conversations (turns)"] = [
                    t for c in data.read_conversations(conversation_file) for t in c
                ]
        card.DATA_CARD_PATH.write_text(card.render_data_card(sets), encoding="utf-8")
        self.stdout.write(f"wrote {card.DATA_CARD_PATH}")


def _short_opening_turns() -> list[data.Message]:
    """Short dev conversation turns whose previous turn is no crisis: the short-message thresholds' extra pool.

    A turn after a crisis is carried by the context rule, not judged on its own, so it says nothing
    about how far the model can be trusted on a short message.
    """
    from conversations.safety.train import SHORT_MESSAGE_WORDS  # noqa: PLC0415 - the trainer's constant

    turns: list[data.Message] = []
    for path in data.DEV_CONVERSATION_FILES:
        for conversation in data.read_conversations(path):
            previous = "none"
            for turn in conversation:
                if previous == "none" and message_model.word_count(redact(turn.text).text) <= SHORT_MESSAGE_WORDS:
                    turns.append(turn)
                previous = turn.crisis
    return turns


def _later_turns() -> list[data.Message]:
    """Dev conversation turns after the first whose previous turn is no crisis: the later-turn thresholds' pool."""
    turns: list[data.Message] = []
    for path in data.DEV_CONVERSATION_FILES:
        for conversation in data.read_conversations(path):
            turns.extend(turn for previous, turn in itertools.pairwise(conversation) if previous.crisis == "none")
    return turns


def _carry_openers() -> list[data.Message]:
    """Dev conversation turns that open a crisis the next turn continues (same line), the rules silent on them."""
    turns: list[data.Message] = []
    for path in data.DEV_CONVERSATION_FILES:
        for conversation in data.read_conversations(path):
            previous = "none"
            for turn, following in itertools.pairwise(conversation):
                opens = turn.crisis != "none" and previous == "none" and following.crisis == turn.crisis
                if opens and not detect_crisis(turn.text).is_crisis:
                    turns.append(turn)
                previous = turn.crisis
    return turns


def _flag_negatives() -> list[data.Message]:
    """The gate's answerable training questions, less any that repeat a blind message (blind never trains)."""
    blind = {data.text_key(m.text) for m in data.every_blind_message()}
    return [m for m in data.read_flag_negatives() if data.text_key(m.text) not in blind]
