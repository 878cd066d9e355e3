"""Idempotency keys and per-conversation serialisation, with real threads on the real database."""

from __future__ import annotations

import pytest

from conversations import services
from conversations.errors import IdempotencyConflict
from conversations.models import NodeRun, Turn
from tests.conversations.threads import in_threads

pytestmark = pytest.mark.django_db(transaction=True)


def test_parallel_deliveries_of_one_message_create_exactly_one_turn() -> None:
    conversation, _ = services.conversation_create(channel="web")
    results = in_threads(
        6,
        lambda i: services.turn_start(
            conversation=conversation, text="need a job in dallas", idempotency_key="same-key"
        ),
    )
    assert not [r for r in results if isinstance(r, Exception)], results
    assert Turn.objects.filter(conversation=conversation).count() == 1
    assert sum(1 for _, created in results if created) == 1


def test_a_replayed_key_with_different_text_is_a_conflict() -> None:
    conversation, _ = services.conversation_create(channel="web")
    services.turn_start(conversation=conversation, text="need a job", idempotency_key="k")
    with pytest.raises(IdempotencyConflict):
        services.turn_start(conversation=conversation, text="need housing", idempotency_key="k")


def test_turns_of_one_conversation_run_one_at_a_time() -> None:
    conversation, _ = services.conversation_create(channel="web")
    turns = [
        services.turn_start(conversation=conversation, text=f"need food in houston {i}", idempotency_key=f"k{i}")[0]
        for i in range(3)
    ]
    results = in_threads(3, lambda i: services.turn_run(turn_id=turns[i].pk))
    assert not [r for r in results if isinstance(r, Exception)], results
    runs = list(
        NodeRun.objects.filter(turn__conversation=conversation)
        .order_by("created_at", "id")
        .values_list("turn_id", flat=True)
    )
    # Serialised: each turn's node runs form one contiguous block.
    blocks = [turn_id for index, turn_id in enumerate(runs) if index == 0 or runs[index - 1] != turn_id]
    assert len(blocks) == 3
    assert all(Turn.objects.get(pk=t.pk).status == Turn.Status.COMPLETED for t in turns)
