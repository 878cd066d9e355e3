"""The declared graph: every node has a transition-table entry and a projection; projections are narrow."""

from __future__ import annotations

import pytest

from conversations.workflow import graph
from conversations.workflow.nodes import NODE_FUNCTIONS
from conversations.workflow.projection import project


def test_every_node_has_a_function_a_projection_and_an_outgoing_edge() -> None:
    sources = {node for node, _ in graph.TRANSITIONS}
    assert set(NODE_FUNCTIONS) == set(graph.NODE_READS) == sources


def test_every_transition_targets_a_node_or_the_end() -> None:
    for (node, outcome), target in graph.TRANSITIONS.items():
        assert target in graph.NODE_READS or target == graph.TERMINAL, f"{node}.{outcome}"


def test_an_undeclared_edge_is_refused() -> None:
    with pytest.raises(KeyError, match="undeclared transition"):
        graph.next_node("intake", "improvise")


def test_any_bound_breach_leads_to_escalate() -> None:
    assert all(graph.next_node(node, "bound_breach") == "escalate" for node in graph.NODES if node != "escalate")


def test_audit_is_on_every_path_from_draft_to_send() -> None:
    assert graph.TRANSITIONS[("draft", "ok")] == "audit"
    into_send = [edge for edge, target in graph.TRANSITIONS.items() if target == "send"]
    assert into_send == [("audit", "pass")]


STATE = {
    "text": "need ID [SSN] houston",
    "place_text": "houston",
    "history": ["earlier turn"],
    "evidence": [{"slug": "x"}],
    "draft": "draft text",
    "language_hint": "en",
    "channel": "web",
    "crisis": {"category": "none"},
}


def test_intake_never_sees_evidence_history_or_drafts() -> None:
    view = project(STATE, graph.NODE_READS["intake"])
    assert "evidence" not in view and "history" not in view and "draft" not in view
    assert view["text"] == STATE["text"]


def test_audit_never_sees_the_message() -> None:
    view = project(STATE, graph.NODE_READS["audit"])
    assert "text" not in view and "place_text" not in view and "query" not in view
    assert view["draft"] == "draft text"


def test_projections_are_read_only_all_the_way_down() -> None:
    view = project(STATE, ("crisis", "evidence"))
    with pytest.raises(TypeError):
        view["crisis"] = {}  # type: ignore[index]
    with pytest.raises(TypeError):
        view["crisis"]["category"] = "suicide_self_harm"  # type: ignore[index]
    assert isinstance(view["evidence"], tuple)


def test_the_workflow_version_changes_when_the_graph_changes(monkeypatch: pytest.MonkeyPatch) -> None:
    before = graph._version()
    monkeypatch.setitem(graph.TRANSITIONS, ("send", "retry"), "send")
    assert graph._version() != before
