"""When a memory ends, as its owner asked: an instant (`expires_at`) or a duration from now
(`expires_in`), read from what people and clients write.

Durations: a number and a unit ("30m", "12h", "7d", "2w", "90 minutes", "1 day"), or ISO 8601
("PT12H", "P7D", "P1DT12H", "P2W"). Months and years are refused: their length depends on the
calendar, and an expiry must mean one instant. Instants: ISO 8601 ("2026-12-01T18:00:00Z",
"2026-12-01T18:00+01:00", "2026-12-01"); one written without an offset is UTC.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

from lethe.errors import InvalidInput

_UNITS = {
    "s": 1,
    "sec": 1,
    "secs": 1,
    "second": 1,
    "seconds": 1,
    "m": 60,
    "min": 60,
    "mins": 60,
    "minute": 60,
    "minutes": 60,
    "h": 3600,
    "hr": 3600,
    "hrs": 3600,
    "hour": 3600,
    "hours": 3600,
    "d": 86400,
    "day": 86400,
    "days": 86400,
    "w": 604800,
    "week": 604800,
    "weeks": 604800,
}
_CALENDAR_UNITS = frozenset(("mo", "month", "months", "y", "yr", "yrs", "year", "years"))
_PLAIN = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([a-z]+)\s*$", re.IGNORECASE)
_ISO = re.compile(
    r"^P(?:(?P<w>\d+(?:\.\d+)?)W)?(?:(?P<d>\d+(?:\.\d+)?)D)?"
    r"(?:T(?:(?P<h>\d+(?:\.\d+)?)H)?(?:(?P<m>\d+(?:\.\d+)?)M)?(?:(?P<s>\d+(?:\.\d+)?)S)?)?$",
    re.IGNORECASE,
)
_HINT = 'write a duration like "30m", "12h", "7d", "2w" or ISO 8601 "PT12H", "P7D"'
MAX_DURATION = timedelta(days=36500)
"""A hundred years: beyond it a duration is a typo, not an expiry."""


def parse_duration(value: str | timedelta, what: str = "expires_in") -> timedelta:
    """A positive duration, from a `timedelta` or its written forms."""
    if isinstance(value, timedelta):
        delta = value
    elif isinstance(value, str):
        delta = _written(value.strip(), what)
    else:
        raise InvalidInput(f"{what} must be a duration, got {type(value).__name__}", hint=_HINT)
    if delta <= timedelta(0):
        raise InvalidInput(f"{what} must be longer than zero, got {value!r}", hint=_HINT)
    if delta > MAX_DURATION:
        raise InvalidInput(f"{what} is over a hundred years ({value!r})", hint=_HINT)
    return delta


def _written(text: str, what: str) -> timedelta:
    try:
        return _read(text, what)
    except OverflowError:
        raise InvalidInput(f"{what} is over a hundred years ({text!r})", hint=_HINT) from None


def _read(text: str, what: str) -> timedelta:
    plain = _PLAIN.match(text)
    if plain and plain.group(2).lower() in _UNITS:
        return timedelta(seconds=float(plain.group(1)) * _UNITS[plain.group(2).lower()])
    iso = _ISO.match(text)
    if iso and text.upper() not in ("P", "PT") and not text.upper().endswith("T"):
        parts = {k: float(v) for k, v in iso.groupdict().items() if v is not None}
        if parts:
            return timedelta(
                weeks=parts.get("w", 0),
                days=parts.get("d", 0),
                hours=parts.get("h", 0),
                minutes=parts.get("m", 0),
                seconds=parts.get("s", 0),
            )
    calendar = (plain is not None and plain.group(2).lower() in _CALENDAR_UNITS) or bool(
        re.match(r"(?i)^P[^T]*[YM]", text)
    )
    if calendar:
        raise InvalidInput(
            f"{what} {text!r}: months and years have no fixed length",
            hint='give it in days or weeks ("30d", "P52W"), or give expires_at instead',
        )
    raise InvalidInput(f"{what} {text!r} is not a duration", hint=_HINT)


def parse_instant(value: str | datetime, what: str = "expires_at") -> datetime:
    """An aware instant, from a `datetime` or ISO 8601 text (UTC when it gives no offset)."""
    if isinstance(value, datetime):
        moment = value
    elif isinstance(value, str):
        text = value.strip()
        try:
            moment = datetime.fromisoformat(text[:-1] + "+00:00" if text[-1:] in "zZ" else text)
        except ValueError:
            raise InvalidInput(
                f"{what} {value!r} is not a date and time",
                hint='write ISO 8601, e.g. "2026-12-01T18:00:00Z" or "2026-12-01"',
            ) from None
    else:
        raise InvalidInput(
            f"{what} must be a date and time, got {type(value).__name__}",
            hint='write ISO 8601, e.g. "2026-12-01T18:00:00Z"',
        )
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def expiry(
    expires_at: str | datetime | None, expires_in: str | timedelta | None, now: datetime
) -> datetime | None:
    """The instant a memory should end, from at most one of the two ways to say it; it must
    lie after `now` (an expiry in the past would be a forget without confirmation)."""
    if expires_at is not None and expires_in is not None:
        raise InvalidInput(
            "give expires_at or expires_in, not both",
            hint="expires_at is an instant, expires_in a duration from now",
        )
    if expires_at is None and expires_in is None:
        return None
    when = (
        parse_instant(expires_at) if expires_at is not None else now + parse_duration(expires_in)  # type: ignore[arg-type]
    )
    if when <= now:
        raise InvalidInput(
            f"expires_at {when.isoformat()} is not in the future (now {now.isoformat()})",
            hint="give a later time or a duration; to forget a memory now, use forget",
        )
    if when - now > MAX_DURATION:
        raise InvalidInput(f"expires_at {when.isoformat()} is over a hundred years away")
    return when.astimezone(UTC)
