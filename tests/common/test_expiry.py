"""When a memory ends, read from what people and clients write (`lethe.common.expiry`). The faces'
own tests (tests/cli/test_expiry.py, tests/mcp/test_expiry.py, tests/ui/test_expiry.py) and
the engine's (tests/engine/test_expiring.py) check each entry point."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from lethe.common.expiry import parse_instant


@pytest.mark.parametrize(
    "text", ["2026-12-01T18:00", "2026-12-01T18:00:00", "2026-12-01 18:00:00.000000"]
)
def test_a_time_without_an_offset_is_utc_whatever_the_local_zone(
    far_from_utc: str, text: str
) -> None:
    assert parse_instant(text) == datetime(2026, 12, 1, 18, 0, tzinfo=UTC)
    assert parse_instant(datetime(2026, 12, 1, 18, 0)) == datetime(2026, 12, 1, 18, 0, tzinfo=UTC)


def test_a_time_with_an_offset_keeps_it() -> None:
    assert parse_instant("2026-12-01T18:00+01:00") == datetime(2026, 12, 1, 17, 0, tzinfo=UTC)
    assert parse_instant("2026-12-01T18:00Z") == datetime(2026, 12, 1, 18, 0, tzinfo=UTC)
