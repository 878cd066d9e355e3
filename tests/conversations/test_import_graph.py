"""No import cycle inside conversations, counting imports inside functions (how the old one hid)."""

from __future__ import annotations

import sys
from pathlib import Path

import grimp

ROOT = Path(__file__).resolve().parents[2]


def _cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def _graph_edges() -> dict[str, set[str]]:
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    graph = grimp.build_graph("conversations", cache_dir=None, exclude_type_checking_imports=True)
    return {module: graph.find_modules_directly_imported_by(module) & graph.modules for module in graph.modules}


def test_conversations_has_no_import_cycle() -> None:
    assert _cycles(_graph_edges()) == []


def test_the_cycle_finder_finds_a_cycle_hidden_in_a_function_level_import() -> None:
    """The check can fail: the cycle the app once had (services → tasks → sms.sender → sms.services → services)."""
    edges = _graph_edges()
    edges["conversations.services"] = {*edges["conversations.services"], "conversations.tasks"}
    cycles = _cycles(edges)
    assert any({"conversations.services", "conversations.tasks"} <= set(cycle) for cycle in cycles), cycles
