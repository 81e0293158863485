"""The orchestrator and its turn pipeline."""

from engine.orchestrator.orchestrator import Orchestrator
from engine.orchestrator.outcome import TurnOutcome

__all__ = ["Orchestrator", "TurnOutcome"]
