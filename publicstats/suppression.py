"""Small-cell suppression for two-way tables with published margins (pure, tested without a database).

Primary: every cell and every total under `THRESHOLD` is suppressed. Complementary: in every line
(a row with its total, a column with its total, the row totals with the grand total, the column
totals with the grand total) whose total is published, a single suppressed cell could be recovered
by subtraction, and so could a group of suppressed cells whose sum is under the threshold; so the
smallest published cell of that line is suppressed too (or, if none is left, the total), repeated
until no line changes. Suppression only grows, so this ends.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

THRESHOLD: Final = 11

Key = tuple[str, str]


@dataclass(frozen=True)
class Table:
    """Published values: None means suppressed. Cells that were zero are simply absent."""

    cells: dict[Key, int | None]
    row_totals: dict[str, int | None]
    col_totals: dict[str, int | None]
    total: int | None


def suppress(counts: dict[Key, int], *, threshold: int = THRESHOLD) -> Table:
    cells = {key: value for key, value in counts.items() if value > 0}
    rows = sorted({row for row, _ in cells})
    cols = sorted({col for _, col in cells})
    true: dict[object, int] = dict(cells.items())
    for row in rows:
        true[("row", row)] = sum(value for (r, _), value in cells.items() if r == row)
    for col in cols:
        true[("col", col)] = sum(value for (_, c), value in cells.items() if c == col)
    true["total"] = sum(cells.values())
    hidden = {key for key, value in true.items() if value < threshold}
    lines: list[tuple[list[object], object]] = []
    lines += [([(row, col) for col in cols if (row, col) in cells], ("row", row)) for row in rows]
    lines += [([(row, col) for row in rows if (row, col) in cells], ("col", col)) for col in cols]
    lines.append(([("row", row) for row in rows], "total"))
    lines.append(([("col", col) for col in cols], "total"))
    changed = True
    while changed:
        changed = False
        for members, total in lines:
            if total in hidden:
                continue
            secret = [member for member in members if member in hidden]
            if not secret or (len(secret) >= 2 and sum(true[member] for member in secret) >= threshold):
                continue
            shown = sorted(
                (member for member in members if member not in hidden), key=lambda member: (true[member], str(member))
            )
            hidden.add(shown[0] if shown else total)
            changed = True

    def published(key: object) -> int | None:
        return None if key in hidden else true[key]

    return Table(
        cells={key: published(key) for key in cells},
        row_totals={row: published(("row", row)) for row in rows},
        col_totals={col: published(("col", col)) for col in cols},
        total=published("total"),
    )
