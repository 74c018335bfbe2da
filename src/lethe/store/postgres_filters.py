"""Filters as a PostgreSQL WHERE clause: `filters.py` in PostgreSQL's dialect."""

from __future__ import annotations

from typing import Any

from lethe.common.filters import Filters
from lethe.store.dialect import POSTGRES
from lethe.store.filters import compile_filters as _compile


def compile_filters(filters: Filters, alias: str = "m") -> tuple[str, list[Any]]:
    return _compile(filters, POSTGRES, alias)
