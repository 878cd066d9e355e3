"""Small-cell suppression: nothing under 11 is published, and nothing suppressed can be recovered."""

from __future__ import annotations

import random

import pytest

from publicstats.suppression import THRESHOLD, Table, suppress


def _lines(table: Table) -> list[tuple[list[int | None], int | None]]:
    rows = sorted(table.row_totals)
    cols = sorted(table.col_totals)
    lines = [([table.cells[(r, c)] for c in cols if (r, c) in table.cells], table.row_totals[r]) for r in rows]
    lines += [([table.cells[(r, c)] for r in rows if (r, c) in table.cells], table.col_totals[c]) for c in cols]
    lines.append(([table.row_totals[r] for r in rows], table.total))
    lines.append(([table.col_totals[c] for c in cols], table.total))
    return lines


def _check(counts: dict[tuple[str, str], int], table: Table) -> None:
    published = [*table.cells.values(), *table.row_totals.values(), *table.col_totals.values(), table.total]
    assert all(value is None or value >= THRESHOLD for value in published)
    true_rows = {r: sum(v for (rr, _), v in counts.items() if rr == r) for r, _ in counts}
    for members, total in _lines(table):
        if total is None:
            continue
        hidden = [m for m in members if m is None]
        # One hidden member in a line with a published total would be total minus the rest.
        assert len(hidden) != 1
    # Hidden groups sum to at least the threshold (their sum is what subtraction reveals).
    for r, total in table.row_totals.items():
        if total is not None:
            hidden_sum = sum(counts[(rr, c)] for (rr, c), v in table.cells.items() if rr == r and v is None)
            assert hidden_sum == 0 or hidden_sum >= THRESHOLD
    assert true_rows  # the table was not empty


def test_a_single_small_cell_takes_a_complement_in_its_row_and_column() -> None:
    counts = {("housing", "houston"): 5, ("housing", "austin"): 40, ("food", "houston"): 30, ("food", "austin"): 50}
    table = suppress(counts)
    assert table.cells[("housing", "houston")] is None
    hidden = [key for key, value in table.cells.items() if value is None]
    assert len(hidden) >= 2
    _check(counts, table)


def test_large_cells_are_all_published() -> None:
    counts = {("housing", "houston"): 12, ("food", "austin"): 50}
    table = suppress(counts)
    assert table.cells == counts and table.total == 62


@pytest.mark.parametrize("seed", range(40))
def test_random_tables_never_publish_a_small_or_recoverable_cell(seed: int) -> None:
    rng = random.Random(seed)
    needs = ["housing", "food", "id_documents", "benefits", "supervision"]
    regions = ["houston", "austin", "el_paso", "dallas_fort_worth"]
    counts = {
        (n, r): rng.choice([1, 3, 8, 10, 11, 14, 25, 60, 200]) for n in needs for r in regions if rng.random() < 0.8
    }
    if not counts:
        return
    _check(counts, suppress(counts))
