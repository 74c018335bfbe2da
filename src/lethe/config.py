"""Settings, read from `LETHE_*` environment variables over an optional `lethe.toml`.

Precedence (highest first): explicit arguments to `Lethe.open`, environment, the config file
(`LETHE_CONFIG`, else `$XDG_CONFIG_HOME/lethe/lethe.toml`), the defaults below.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from lethe.errors import InvalidInput

DEFAULT_EMBEDDER = "sentence-transformers/all-MiniLM-L6-v2"


def default_db_path() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "lethe" / "lethe.db"


def default_config_path() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "lethe" / "lethe.toml"


class Settings(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    db: str = Field(default_factory=lambda: str(default_db_path()))
    workspace_dir: Path | None = None
    max_content_bytes: int = Field(32 * 1024, gt=0)
    duplicate_threshold: float = Field(0.95, gt=0, le=1)
    autolink_threshold: float = Field(0.7, gt=0, le=1)
    autolink_max: int = Field(5, ge=0)
    busy_timeout_ms: int = Field(5000, ge=0)
    rrf_k: int = Field(60, gt=0)
    confirm_ttl_seconds: float = Field(300.0, gt=0)
    forget_margin: float = Field(0.05, ge=0, le=1)
    trash_retention_days: float | None = Field(30.0, gt=0)
    llm_base_url: str | None = None
    llm_model: str | None = None
    llm_api_key: str | None = Field(None, repr=False)
    working_budget_tokens: int = Field(4000, gt=0)
    consolidate_threshold: float = Field(0.90, gt=0, le=1)
    decay_policy: Literal["off", "suggest", "auto"] = "suggest"
    decay_compress_risk: float = Field(50.0, gt=0)
    decay_drop_risk: float = Field(200.0, gt=0)
    context_before: int = Field(4, ge=0, le=20)
    """Earlier turns in a conversational memory's context (lethe.common.context)."""
    context_after: int = Field(1, ge=0, le=20)
    """Later turns in it."""
    threads: int | None = Field(None, ge=1, le=256)
    """Threads the encoder and the int8 vector pass may each use (None: the cores this
    process may run on, at most 4; lethe.common.threads)."""
    embedder: str = DEFAULT_EMBEDDER
    """The embedding model (embed/registry.py), by its full or short name. A store records
    the model its vectors are of and refuses another; `lethe reembed` moves it."""

    @field_validator("embedder")
    @classmethod
    def _known_embedder(cls, value: str) -> str:
        if value == DEFAULT_EMBEDDER:
            return value  # the registry (and numpy with it) is imported only when needed
        from lethe.embed.registry import resolve

        try:
            return resolve(value).name
        except InvalidInput as exc:
            raise ValueError(exc.message) from None

    @model_validator(mode="after")
    def _risk_order(self) -> Settings:
        if self.decay_compress_risk >= self.decay_drop_risk:
            raise ValueError(
                f"decay_compress_risk ({self.decay_compress_risk:g}) must be below "
                f"decay_drop_risk ({self.decay_drop_risk:g})"
            )
        return self

    @classmethod
    def load(
        cls, env: Mapping[str, str] | None = None, overrides: Mapping[str, Any] | None = None
    ) -> Settings:
        env = os.environ if env is None else env
        values: dict[str, Any] = {}
        path = Path(env["LETHE_CONFIG"]) if env.get("LETHE_CONFIG") else default_config_path()
        if path.is_file():
            try:
                values.update(tomllib.loads(path.read_text(encoding="utf-8")))
            except (OSError, tomllib.TOMLDecodeError) as exc:
                raise InvalidInput(f"cannot read config file {path}: {exc}") from None
        for name in cls.model_fields:
            raw = env.get(f"LETHE_{name.upper()}")
            if raw:
                values[name] = None if raw.lower() in ("none", "forever") else raw
        values.update(overrides or {})
        try:
            return cls(**values)
        except ValidationError as exc:
            problems = "; ".join(
                f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors()
            )
            raise InvalidInput(
                f"invalid settings: {problems}", hint="check LETHE_* variables and lethe.toml"
            ) from None


def is_postgres_dsn(target: object) -> bool:
    """Whether a `db` setting names a PostgreSQL database rather than a SQLite file."""
    return isinstance(target, str) and target.startswith(("postgresql://", "postgres://"))
