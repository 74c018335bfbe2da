"""A memory and its links laid out for a small SVG: the memory in the middle, the memories it
links to on a circle around it, the line's weight following the link's confidence."""

from __future__ import annotations

import math
from dataclasses import dataclass

SIZE = 360
RADIUS = 130
MAX_NODES = 16
"""More neighbours than this are listed, not drawn: the picture would be unreadable."""


@dataclass(frozen=True)
class Node:
    id: str
    label: str
    x: float
    y: float
    centre: bool


@dataclass(frozen=True)
class Edge:
    x1: float
    y1: float
    x2: float
    y2: float
    width: float
    confidence: float
    kind: str


@dataclass(frozen=True)
class Graph:
    nodes: tuple[Node, ...]
    edges: tuple[Edge, ...]
    hidden: int
    size: int = SIZE


def layout(
    centre_id: str, centre_label: str, neighbours: list[tuple[str, str, str, float]]
) -> Graph:
    """`neighbours` are (id, label, kind, confidence), strongest first."""
    c = SIZE / 2
    shown = neighbours[:MAX_NODES]
    nodes = [Node(centre_id, centre_label, c, c, True)]
    edges = []
    for i, (other, label, kind, confidence) in enumerate(shown):
        angle = 2 * math.pi * i / max(len(shown), 1) - math.pi / 2
        x, y = c + RADIUS * math.cos(angle), c + RADIUS * math.sin(angle)
        nodes.append(Node(other, label, round(x, 1), round(y, 1), False))
        edges.append(Edge(c, c, round(x, 1), round(y, 1), 1 + 4 * confidence, confidence, kind))
    return Graph(tuple(nodes), tuple(edges), len(neighbours) - len(shown))
