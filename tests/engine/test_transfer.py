"""The JSONL interchange format (`lethe.engine.transfer`): reading lines that are not what an export
writes. The round trips themselves are in tests/engine/test_records.py."""

from __future__ import annotations

import pytest

from lethe.engine.transfer import read_jsonl
from lethe.errors import InvalidInput


@pytest.mark.parametrize(
    ("line", "says"),
    [
        ("[" * 100_000, "nested deeper than lethe reads"),
        ('{"content": "x", "n": 1' + "0" * 5_000 + "}", "digits"),
        ("{not json", "not valid JSON"),
        ("[1, 2]", "expected a JSON object"),
    ],
)
def test_a_line_that_cannot_be_read_is_one_error_naming_the_line(line: str, says: str) -> None:
    lines = iter(['{"content": "fine"}\n', "\n", line + "\n"])
    with pytest.raises(InvalidInput) as refused:
        list(read_jsonl(lines))
    message = refused.value.message
    assert message.startswith("line 3: ") and says in message and "\n" not in message
