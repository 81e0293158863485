"""The recorded-stream tests run whole turns: their orchestrators are closed as the orchestrator tests' are."""

from tests.engine.orchestrator.conftest import close_orchestrators

__all__ = ["close_orchestrators"]
