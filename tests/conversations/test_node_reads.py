"""Each node reads exactly the state keys it declares (graph.NODE_READS), over representative turns;
every key the turn state holds is declared in TurnState."""

from __future__ import annotations

import uuid
from collections.abc import Iterator, Mapping
from typing import Any

import pytest

from conversations import services
from conversations.models import Conversation, Turn
from conversations.workflow import graph
from conversations.workflow.nodes import NODE_FUNCTIONS
from conversations.workflow.state import TURN_STATE_KEYS

pytestmark = pytest.mark.django_db

# A web question, an SMS one, a follow-up, a release plan, a crisis, a request for a person,
# another state, a legal question about one's own case: between them every node and branch runs.
TURNS = [
    ("web", "I just got out of TDCJ and need an ID in Houston"),
    ("web", "what about Dallas?"),
    ("sms", "where can I sleep tonight in san antonio"),
    ("web", "I get out Friday from Bexar county on parole, what do I do first"),
    ("web", "i been saving pills, whats the point anymore"),
    ("sms", "I want to talk to a real person"),
    ("web", "I was released in Oklahoma, can I get food stamps there"),
    ("web", "should I plead guilty on my new charge"),
]


class RecordingView(Mapping[str, Any]):
    """A node's projection that notes which keys the node looked at."""

    def __init__(self, view: Mapping[str, Any], seen: set[str]) -> None:
        self._view, self._seen = view, seen

    def __getitem__(self, key: str) -> Any:
        self._seen.add(key)
        return self._view[key]

    def __iter__(self) -> Iterator[str]:
        raise AssertionError("a node iterates its whole projection: it cannot declare what it reads")

    def __len__(self) -> int:
        return len(self._view)


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> dict[str, set[str]]:
    seen: dict[str, set[str]] = {node: set() for node in NODE_FUNCTIONS}
    for node, function in list(NODE_FUNCTIONS.items()):

        def recording(view: Mapping[str, Any], ctx: Any, *, _node: str = node, _function: Any = function) -> Any:
            return _function(RecordingView(view, seen[_node]), ctx)

        monkeypatch.setitem(NODE_FUNCTIONS, node, recording)
    return seen


def _run_all() -> list[Turn]:
    conversations: dict[str, Conversation] = {}
    turns = []
    for channel, text in TURNS:
        if channel not in conversations or text.startswith("I get out"):
            conversations[channel], _ = services.conversation_create(channel=channel)
        turn, _ = services.turn_start(conversation=conversations[channel], text=text, idempotency_key=uuid.uuid4().hex)
        turns.append(services.turn_run(turn_id=turn.pk))
    return turns


def test_each_node_reads_exactly_what_it_declares(reads: dict[str, set[str]]) -> None:
    turns = _run_all()
    assert {turn.status for turn in turns} >= {"completed", "escalated"}
    assert all(reads[node] for node in NODE_FUNCTIONS), "every node ran on at least one turn"
    for node, declared in graph.NODE_READS.items():
        assert reads[node] == set(declared), f"{node}: reads {sorted(reads[node])}, declares {sorted(declared)}"


def test_the_turn_state_holds_only_typed_keys(reads: dict[str, set[str]]) -> None:
    turns = _run_all()
    written = set().union(*(turn.state for turn in turns))
    assert written <= TURN_STATE_KEYS, sorted(written - TURN_STATE_KEYS)
    declared = {key for keys in graph.NODE_READS.values() for key in keys} | set(graph.SENDER_READS)
    assert declared <= TURN_STATE_KEYS, sorted(declared - TURN_STATE_KEYS)


def test_a_node_reading_an_undeclared_key_is_caught(reads: dict[str, set[str]]) -> None:
    """The check can fail: a node that reads one key more than it declares shows up in the record."""
    seen: set[str] = set()
    view = RecordingView({"draft": "x", "channel": "web", "mode": "navigator"}, seen)
    with pytest.raises(KeyError):
        view["region"]
    assert "region" in seen and seen - set(graph.NODE_READS["send"]) == {"region"}
