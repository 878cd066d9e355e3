"""Inline SVG charts for the dashboard (no CDN, no script): bars with text labels and titles."""

from __future__ import annotations

from collections.abc import Sequence

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

BAR_COLOR = "#1f6feb"
ALT_COLOR = "#b42318"


def column_chart(
    points: Sequence[tuple[str, int]], *, title: str, color: str = BAR_COLOR, width: int = 640, height: int = 160
) -> SafeString:
    """A column chart of (label, value); every column has a <title> so screen readers and hovers get the value."""
    top = max((value for _, value in points), default=0) or 1
    gap = 2
    plot_height = height - 30
    column = max(1.0, (width - gap * len(points)) / max(1, len(points)))
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" role="img" aria-label="{escape(title)}" viewBox="0 0 {width} {height}" width="100%" class="pw-chart">',
        f"<title>{escape(title)}</title>",
    ]
    for index, (label, value) in enumerate(points):
        bar = plot_height * value / top
        x = index * (column + gap)
        parts.append(
            f'<rect x="{x:.1f}" y="{plot_height - bar:.1f}" width="{column:.1f}" height="{bar:.1f}" fill="{color}">'
            f"<title>{escape(label)}: {value}</title></rect>"
        )
    if points:
        parts.append(f'<text x="0" y="{height - 8}" font-size="11">{escape(points[0][0])}</text>')
        parts.append(
            f'<text x="{width}" y="{height - 8}" font-size="11" text-anchor="end">{escape(points[-1][0])}</text>'
        )
    parts.append(f'<text x="{width}" y="12" font-size="11" text-anchor="end">max {top}</text>')
    parts.append("</svg>")
    return mark_safe("".join(parts))  # noqa: S308 - every interpolated label is escaped above


def bar_chart(
    points: Sequence[tuple[str, float]], *, title: str, color: str = BAR_COLOR, width: int = 640, unit: str = ""
) -> SafeString:
    """A horizontal bar chart of (label, value) with the value printed at the end of each bar."""
    row = 22
    label_width = 180
    height = row * max(1, len(points)) + 4
    top = max((value for _, value in points), default=0) or 1
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" role="img" aria-label="{escape(title)}" viewBox="0 0 {width} {height}" width="100%" class="pw-chart">',
        f"<title>{escape(title)}</title>",
    ]
    for index, (label, value) in enumerate(points):
        y = index * row + 2
        bar = (width - label_width - 70) * value / top
        shown = f"{value:.0%}" if unit == "%" else f"{value:g}{unit}"
        parts.append(f'<text x="0" y="{y + 15}" font-size="12">{escape(label)}</text>')
        parts.append(
            f'<rect x="{label_width}" y="{y + 3}" width="{bar:.1f}" height="{row - 6}" fill="{color}"><title>{escape(label)}: {escape(shown)}</title></rect>'
        )
        parts.append(f'<text x="{label_width + bar + 6:.1f}" y="{y + 15}" font-size="12">{escape(shown)}</text>')
    parts.append("</svg>")
    return mark_safe("".join(parts))  # noqa: S308 - every interpolated label is escaped above
