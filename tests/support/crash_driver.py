"""A process to kill: runs inputs through the orchestrator, one after the other as the app does, until the test
SIGKILLs it.

    python -m tests.support.crash_driver WORKSPACE BASE_URL MODE TEXT [TEXT...]

An approval is never answered: the driver writes ``approval-pending`` in the workspace and waits, so a test can
kill the process at exactly that point.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from engine.config import Config
from engine.interaction import ApprovalDecision, ApprovalRequest, QuestionAnswer, QuestionRequest
from engine.modes import Mode
from engine.orchestrator.orchestrator import Orchestrator


class NeverAnswers:
    def __init__(self, workspace: Path) -> None:
        self.workspace = workspace

    async def request_approval(self, request: ApprovalRequest) -> ApprovalDecision:
        (self.workspace / "approval-pending").write_text(request.call_id)
        await asyncio.Event().wait()
        raise AssertionError("unreachable")

    async def ask_question(self, request: QuestionRequest) -> QuestionAnswer:
        await asyncio.Event().wait()
        raise AssertionError("unreachable")


async def main(workspace: Path, base_url: str, mode: str, *texts: str) -> None:
    config = Config.model_validate({"model": "scripted-model", "provider": {"base_url": base_url}})
    orchestrator = Orchestrator(
        workspace=workspace,
        config=config,
        interaction=NeverAnswers(workspace),
        mode=Mode.parse(mode),
        env={"OPENAI_API_KEY": "sk-crash"},
    )
    for text in texts:
        await orchestrator.run_input(text)
    await asyncio.Event().wait()  # stay alive until killed, like an open app


if __name__ == "__main__":
    asyncio.run(main(Path(sys.argv[1]), sys.argv[2], sys.argv[3], *sys.argv[4:]))
