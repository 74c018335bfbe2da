"""Forget mode's entry points: an LLM when one is configured, the deterministic planner else."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from lethe.common.identifiers import DEFAULT_NAMESPACE
from lethe.config import Settings
from lethe.errors import InvalidInput

if TYPE_CHECKING:
    from lethe.engine.forget_session import ForgetSession
    from lethe.engine.lethe import Lethe


class ForgetMode:
    """Forget mode: one natural-language instruction run by a session that drives the
    engine's public methods (`ForgetSession`), with a model when one is configured."""

    def __init__(self, settings: Settings, engine: Lethe) -> None:
        self.settings = settings
        self._engine = engine

    def forget_session(
        self,
        instruction: str,
        *,
        query: str | None = None,
        filters: dict[str, Any] | None = None,
        where: Sequence[str] = (),
        explicit_ids: Sequence[str] = (),
        namespace: str = DEFAULT_NAMESPACE,
        dry_run: bool = True,
        use_llm: bool | None = None,
    ) -> ForgetSession:
        """Run one forget instruction and return its session: `result()` is seed 002's
        answer, and a dry run's `approve()` carries out exactly the plan it shows.

        `filters` / `where` are the user's scope (metadata filters there may widen a query
        deletion, as in plan_forget); `query` steers the deterministic planner's search and
        is handed to a model as a suggestion. `use_llm=None` uses the configured endpoint."""
        from lethe.engine.forget_agent import run_agent
        from lethe.engine.forget_session import ForgetSession, search_instruction

        configured = bool(self.settings.llm_base_url and self.settings.llm_model)
        if use_llm and not configured:
            raise InvalidInput(
                "no LLM is configured for forget mode",
                hint="set LETHE_LLM_BASE_URL and LETHE_LLM_MODEL (and LETHE_LLM_API_KEY)",
            )
        session = ForgetSession(
            self._engine,
            instruction,
            namespace=namespace,
            dry_run=dry_run,
            explicit_ids=explicit_ids,
            scope=filters,
            scope_where=where,
        )
        if use_llm or (use_llm is None and configured):
            return run_agent(
                session,
                base_url=self.settings.llm_base_url or "",
                model=self.settings.llm_model or "",
                api_key=self.settings.llm_api_key,
                suggested_query=query,
            )
        return search_instruction(session, query)

    def forget_instruction(
        self,
        instruction: str,
        *,
        query: str | None = None,
        filters: dict[str, Any] | None = None,
        where: Sequence[str] = (),
        explicit_ids: Sequence[str] = (),
        namespace: str = DEFAULT_NAMESPACE,
        dry_run: bool = True,
        use_llm: bool | None = None,
    ) -> dict[str, Any]:
        """Plan (dry run, the default) or carry out one natural-language forget instruction;
        seed 002's response. See `forget_session` for the arguments."""
        return self.forget_session(
            instruction,
            query=query,
            filters=filters,
            where=where,
            explicit_ids=explicit_ids,
            namespace=namespace,
            dry_run=dry_run,
            use_llm=use_llm,
        ).result()
