"""`manage.py ask "TEXT" --json` and `manage.py ask --jsonl IN.jsonl`: run the real workflow from the shell."""

from __future__ import annotations

import json
import sys
import uuid
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from conversations import selectors, services
from conversations.errors import ConversationError
from conversations.models import Conversation
from corpus.embeddings import get_model


class Command(BaseCommand):
    help = "Ask Pathways a question through the real workflow and print the turn."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("text", nargs="?", help="the message")
        parser.add_argument("--channel", choices=["web", "sms"], default="web")
        parser.add_argument("--language", choices=["en", "es"], default=None)
        parser.add_argument("--conversation", help="continue an existing conversation (id)")
        parser.add_argument("--json", action="store_true", help="print the turn JSON")
        parser.add_argument("--jsonl", help='file of {"id","text","channel","language"} lines ("-" for stdin)')

    def handle(self, *args: Any, **options: Any) -> None:
        # Load the embedding model before any turn's clock starts: a cold load must not eat the deadline.
        get_model()
        if options["jsonl"]:
            self._batch(options["jsonl"])
            return
        if not options["text"]:
            raise CommandError('give a message: manage.py ask "TEXT" [--json], or --jsonl FILE')
        conversation = self._conversation(options["conversation"], options["channel"], options["language"])
        try:
            payload = self._ask(conversation, options["text"], options["language"], options["channel"])
        except ConversationError as exc:
            raise CommandError(f"{exc.code}: {exc.message}") from None
        if options["json"]:
            self.stdout.write(json.dumps(payload, ensure_ascii=False, indent=2))
        else:
            self.stdout.write(f"[{payload['status']}] {payload['reply']}")
            for citation in payload["citations"]:
                self.stdout.write(f"  cites {citation['citation']} — {citation['url']}")
            self.stdout.write(f"  conversation {payload['conversation_id']}")

    def _conversation(self, conversation_id: str | None, channel: str, language: str | None) -> Conversation:
        if conversation_id:
            try:
                return Conversation.objects.get(pk=conversation_id)
            except (Conversation.DoesNotExist, ValueError):
                raise CommandError(f"unknown conversation {conversation_id}") from None
        if channel == "sms":
            # The CLI has no phone: an SMS-channel conversation with an anonymous contact.
            conversation, _ = services.conversation_create(channel="sms", language=language)
            return conversation
        conversation, _ = services.conversation_create(channel="web", language=language)
        return conversation

    def _ask(self, conversation: Conversation, text: str, language: str | None, channel: str) -> dict[str, Any]:
        turn, _ = services.turn_start(
            conversation=conversation, text=text, idempotency_key=uuid.uuid4().hex, language=language, channel=channel
        )
        turn = services.turn_run(turn_id=turn.pk)
        return selectors.turn_payload(turn)

    def _batch(self, source: str) -> None:
        handle = sys.stdin if source == "-" else Path(source).open(encoding="utf-8")  # noqa: SIM115
        with handle:
            for number, line in enumerate(handle, start=1):
                if not line.strip():
                    continue
                item = None  # a line that does not parse must not report the previous line's id
                try:
                    item = json.loads(line)
                    if not isinstance(item, dict) or "text" not in item:
                        raise ValueError("each line needs a JSON object with a text field")
                    channel = item.get("channel") or "web"
                    conversation = self._conversation(item.get("conversation_id"), channel, item.get("language"))
                    payload = self._ask(conversation, str(item["text"]), item.get("language"), channel)
                except (ValueError, ConversationError) as exc:
                    payload = {"error": {"line": number, "message": getattr(exc, "message", str(exc))}}
                    item = item if isinstance(item, dict) else {}
                payload = {"id": item.get("id"), **payload}
                self.stdout.write(json.dumps(payload, ensure_ascii=False))
