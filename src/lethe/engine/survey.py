"""A read-only look at a store for the faces (`lethe doctor`): the store's survey
(store/survey.py), reached through the engine so no face imports the store."""

from __future__ import annotations

from lethe.store.survey import (
    POSTGRES_LATEST,
    SQLITE_HEADER,
    SQLITE_LATEST,
    Survey,
    SurveyFailed,
    describe_postgres,
    survey_postgres,
    survey_sqlite,
)

__all__ = [
    "POSTGRES_LATEST",
    "SQLITE_HEADER",
    "SQLITE_LATEST",
    "Survey",
    "SurveyFailed",
    "describe_postgres",
    "survey_postgres",
    "survey_sqlite",
]
