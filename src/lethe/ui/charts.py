"""Bar charts as plain geometry, drawn by the templates as inline SVG.

No chart library and no script: the numbers become rectangles here, and the template writes
them out (escaping every label), so a chart renders offline and under the page's policy.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

WIDTH = 640
HEIGHT = 180
LEFT = 36
BOTTOM = 22


@dataclass(frozen=True)
class Bar:
    x: float
    y: float
    width: float
    height: float
    value: int
    label: str
    series: str


@dataclass(frozen=True)
class Chart:
    bars: tuple[Bar, ...]
    labels: tuple[tuple[float, str], ...]
    """Category labels along the bottom (x of the label's centre, text)."""
    top: int
    """The value the top of the plot stands for."""
    series: tuple[str, ...]
    width: int = WIDTH
    height: int = HEIGHT
    left: int = LEFT
    bottom: int = BOTTOM


def _top(values: Sequence[int]) -> int:
    peak = max(values, default=0)
    return max(peak, 1)


def histogram(labels: Sequence[str], counts: Sequence[int], series: str = "count") -> Chart:
    """One bar per bin."""
    return grouped(labels, {series: counts})


def grouped(
    categories: Sequence[str], values: Mapping[str, Sequence[int]], *, label_every: int = 1
) -> Chart:
    """Several series side by side in each category (e.g. forgets, restores, purges per day)."""
    names = tuple(values)
    top = _top([v for series in values.values() for v in series])
    plot_w, plot_h = WIDTH - LEFT, HEIGHT - BOTTOM - 8
    slot = plot_w / max(len(categories), 1)
    inner = (slot - 2) / max(len(names), 1)
    bars = []
    for i, category in enumerate(categories):
        for j, name in enumerate(names):
            count = values[name][i]
            h = plot_h * count / top
            x = LEFT + i * slot + 1 + j * inner
            bars.append(Bar(x, 8 + plot_h - h, max(inner - 1, 1), h, int(count), category, name))
    ticks = tuple(
        (LEFT + (i + 0.5) * slot, c) for i, c in enumerate(categories) if i % label_every == 0
    )
    return Chart(tuple(bars), ticks, top, names)
