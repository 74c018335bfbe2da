"""Forget mode's entry point: an LLM when one is configured, the deterministic planner else."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from lethe.engine.base import EngineBase
from lethe.errors import InvalidInput
from lethe.model import DEFAULT_NAMESPACE


class ForgetModeOps(EngineBase):
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
        """Plan (dry run, the default) or carry out one natural-language forget instruction.
        Returns seed 002's response. `use_llm=None` uses the configured endpoint if any."""
        from lethe.engine import Lethe
        from lethe.forget.agent import run_agent
        from lethe.forget.session import plan_instruction

        assert isinstance(self, Lethe)
        configured = bool(self.settings.llm_base_url and self.settings.llm_model)
        if use_llm and not configured:
            raise InvalidInput(
                "no LLM is configured for forget mode",
                hint="set LETHE_LLM_BASE_URL and LETHE_LLM_MODEL (and LETHE_LLM_API_KEY)",
            )
        if use_llm or (use_llm is None and configured):
            return run_agent(
                self,
                instruction,
                base_url=self.settings.llm_base_url or "",
                model=self.settings.llm_model or "",
                api_key=self.settings.llm_api_key,
                namespace=namespace,
                dry_run=dry_run,
                filters=filters,
                where=where,
                explicit_ids=explicit_ids,
            )
        return plan_instruction(
            self,
            instruction,
            query=query,
            filters=filters,
            where=where,
            explicit_ids=explicit_ids,
            namespace=namespace,
            dry_run=dry_run,
        )
