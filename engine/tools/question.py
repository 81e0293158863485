"""The ``question`` tool (SPEC 5): the model asks the user something through the interaction interface and gets the
answer back as its result. The front end decides how to ask (the TUI's question dialog: a choice, a confirmation or
typed input); a run that cannot ask (headless, no answer configured) gives the model an error it can act on."""

from __future__ import annotations

import asyncio

from pydantic import BaseModel, Field, model_validator

from engine.errors import ToolError
from engine.interaction import InteractionHandler, QuestionRequest
from engine.tools.base import Tool, ToolContext, ToolKind, ToolOutput

MAX_OPTIONS = 10


class QuestionParams(BaseModel):
    question: str = Field(min_length=1, description="The question, complete and self-contained.")
    options: list[str] | None = Field(
        default=None,
        max_length=MAX_OPTIONS,
        description=f"Optional: up to {MAX_OPTIONS} answers to choose from, each short and distinct.",
    )
    allow_input: bool = Field(
        default=True,
        description="Whether the user may type an answer of their own besides the options. Default: true. "
        "Set false to force a choice among the options.",
    )

    @model_validator(mode="after")
    def _answerable(self) -> QuestionParams:
        options = [option.strip() for option in self.options or []]
        if any(not option for option in options):
            raise ValueError("options must not be empty strings")
        if len(set(options)) != len(options):
            raise ValueError("options must be distinct")
        if not options and not self.allow_input:
            raise ValueError("with no options, allow_input must be true, or the user could not answer at all")
        self.options = options or None
        return self


class QuestionTool(Tool[QuestionParams]):
    name = "question"
    description = (
        "Ask the user a question and wait for the answer. Use it when you cannot go on without a decision only the "
        "user can make (which of two designs, a missing requirement, a risky choice), not for things you can find "
        "out by reading the project. Give `options` when the answers are few and known. The result holds the "
        "user's answer. If the user cannot be asked (a non-interactive run), the call fails: then make the most "
        "reasonable assumption, say which, and go on."
    )
    params = QuestionParams
    kind = ToolKind.INTERACT

    def __init__(self, interaction: InteractionHandler) -> None:
        self._interaction = interaction

    def key_argument(self, params: QuestionParams) -> str:
        return params.question

    async def run(self, params: QuestionParams, ctx: ToolContext) -> ToolOutput:
        answer = await self._interaction.ask_question(
            QuestionRequest(
                question=params.question,
                options=tuple(params.options or ()),
                allow_input=params.allow_input,
                call_id=ctx.call_id,
            )
        )
        if answer.cancelled:
            # Esc in the dialog cancels the whole task, as it does for an approval; it is not an answer.
            raise asyncio.CancelledError()
        if answer.answer is None:
            raise ToolError(
                "the user could not be asked: this run is not interactive and no answer was given. Make the most "
                "reasonable assumption, say which one you made, and go on."
            )
        return ToolOutput(data={"question": params.question, "answer": answer.answer})
