"""The approval dialog (SPEC 5): the tool, its key argument, every reason it asks, the command or the diff an edit
would make, and what "always" would allow. y / a (this session) / p (this project, saved) or the buttons; n refuses
and stops the turn (the model waits for the user's next message); t is "no, and tell the model why" (a line to type
the reason opens; Enter sends it with the refusal and the turn goes on); Esc cancels the whole task. A call that can
only be allowed once (a risk reason, or a reason of the tool's own, asks again whatever is saved) offers no "always".

At any size the reasons and every choice stay on screen (SPEC 25): the argument and the diff scroll inside the room
they leave, a line under them says how many lines are hidden above and below, and the dialog's own footer lists its
keys. The argument arrives with nothing hidden (``coder_tui.link.drawable``): newlines, tabs, carriage returns, escape
sequences and invisible characters are marked, so no padding or trick can hide what will run.

For write, edit and patch the user keeps some hunks of the diff and drops others (SPEC 5): ↑/↓ move between hunks,
Space keeps or drops the one under the cursor. An allowing answer then carries the kept hunks; with every hunk
dropped it is a refusal; t with some dropped applies the kept ones and tells the model why the others were not.
"""

from __future__ import annotations

import re
from typing import Literal

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Footer, Input, Static

from coder_tui.input.bindings import bindings_for
from coder_tui.widgets.dialog_box import DialogBox
from coder_tui.widgets.diff_view import DiffView
from coder_tui.widgets.hunk_picker import HunkPicker
from engine.interaction import ApprovalAnswer, ApprovalDecision, ApprovalRequest
from engine.record import record

ButtonVariant = Literal["default", "primary", "success", "warning", "error"]


@record
class Choice:
    """One button of the dialog: the decision it answers, its label (naming its key) and the row it sits in."""

    button_id: str
    label: str
    decision: ApprovalDecision
    variant: ButtonVariant
    row: Literal["allow", "refuse"]


# Allowing choices on the first row, refusing ones on the second: at 80 columns one row cannot hold them all.
CHOICES: tuple[Choice, ...] = (
    Choice("yes", "Yes (y)", ApprovalDecision.YES, "success", "allow"),
    Choice("always-button", "Always (a)", ApprovalDecision.ALWAYS, "primary", "allow"),
    Choice("always-project", "Always here (p)", ApprovalDecision.ALWAYS_PROJECT, "primary", "allow"),
    Choice("no", "No, stop (n)", ApprovalDecision.NO, "error", "refuse"),
    Choice("explain", "No, tell it why (t)", ApprovalDecision.NO, "warning", "refuse"),
    Choice("cancel", "Cancel task (esc)", ApprovalDecision.CANCEL, "default", "refuse"),
)
_ALWAYS = (ApprovalDecision.ALWAYS, ApprovalDecision.ALWAYS_PROJECT)
_ALLOWING = (ApprovalDecision.YES, *_ALWAYS)
# The tools whose diff can be applied hunk by hunk.
HUNK_TOOLS = frozenset({"write", "edit", "patch"})
# The same width as the refusal label: a button keeps the width of its first label.
EXPLAIN_REFUSAL, EXPLAIN_DROPS = "No, tell it why (t)", "Apply, say why (t)"


# A run of more empty lines than this in a command is drawn as one line that counts them.
BLANK_RUN = 2
_BLANK_LINE = re.compile(r"^[ ↵]*↵$")


def collapse_blank_runs(argument: str) -> str:
    """The argument with each run of empty lines (each marked ``↵``) longer than ``BLANK_RUN`` drawn as one line
    that counts them: padding cannot push what runs out of the dialog's window."""
    out: list[str] = []
    run: list[str] = []
    for line in [*argument.split("\n"), None]:
        if line is not None and _BLANK_LINE.match(line):
            run.append(line)
            continue
        out += run if len(run) <= BLANK_RUN else [f"↵ × {len(run)} (blank lines)"]
        run = []
        if line is not None:
            out.append(line)
    return "\n".join(out)


def _looks_like_diff(text: str) -> bool:
    return text.startswith(("--- ", "diff ", "@@")) or "\n@@ " in text


class ApprovalScreen(ModalScreen[ApprovalDecision | ApprovalAnswer]):
    """Dismissed with the user's decision (an ``ApprovalAnswer`` when it carries a reason);
    ``ApprovalDecision.CANCEL`` on Esc."""

    DEFAULT_CSS = """
    ApprovalScreen {
        align: center middle;
        background: $background 60%;
    }
    ApprovalScreen > DialogBox {
        width: 90%;
        max-width: 110;
        padding: 0 1;
        border: thick $warning;
        background: $surface;
    }
    ApprovalScreen #title { text-style: bold; color: $text-warning; }
    ApprovalScreen #worktree { color: $text-muted; }
    ApprovalScreen #argument { text-style: bold; padding: 0 1; }
    ApprovalScreen #reasons-box { height: auto; max-height: 6; margin: 1 0 0 0; }
    ApprovalScreen #reasons { color: $text-warning; }
    ApprovalScreen #preview { height: auto; max-height: 30; margin: 1 0 0 0; background: $panel; }
    ApprovalScreen #preview > .command { padding: 0 1; }
    ApprovalScreen #hidden { color: $text-muted; text-style: italic; }
    ApprovalScreen #always { margin: 1 0 0 0; color: $text-muted; }
    ApprovalScreen .choices { height: auto; margin: 1 0 0 0; }
    ApprovalScreen .choices.-refuse { margin: 0; }
    ApprovalScreen .choices > Button { min-width: 0; margin: 0 2 0 0; }
    ApprovalScreen #reason { display: none; margin: 1 0 0 0; }
    ApprovalScreen.-explaining #reason { display: block; }
    """

    BINDINGS = bindings_for("approval")

    def __init__(self, request: ApprovalRequest) -> None:
        super().__init__()
        self.request = request

    @property
    def choices(self) -> list[Choice]:
        """The choices this call offers: no "always" for a call that can only be allowed once."""
        once_only = self.request.always_scope is None
        return [choice for choice in CHOICES if not (once_only and choice.decision in _ALWAYS)]

    @property
    def hunks(self) -> HunkPicker | None:
        """The diff whose hunks the user keeps or drops, for write, edit and patch."""
        found = self.query(HunkPicker)
        return found.first() if found else None

    def compose(self) -> ComposeResult:
        request = self.request
        with DialogBox(id="dialog"):
            if request.agent is None:
                yield Static(Content(f"Allow {request.tool}?"), id="title")
            else:  # several agents may ask: the dialog says which one, and where it works
                yield Static(Content(f"Agent {request.agent} asks: allow {request.tool}?"), id="title")
                yield Static(Content(f"in its worktree {request.worktree}"), id="worktree")
            if request.reasons:
                reasons = "\n".join(f"• {reason}" for reason in request.reasons)
                with VerticalScroll(id="reasons-box"):
                    yield Static(Content(f"Why it asks:\n{reasons}"), id="reasons")
            # The argument and the preview scroll together in the room the reasons and the choices leave.
            with VerticalScroll(id="preview", classes="-flexible"):
                yield Static(Content(collapse_blank_runs(request.key_argument)), id="argument")
                preview = request.preview
                if preview and preview.strip() != request.key_argument.strip():
                    if _looks_like_diff(preview) and request.tool in HUNK_TOOLS:
                        yield HunkPicker(preview)
                    elif _looks_like_diff(preview):
                        yield DiffView(preview)
                    else:
                        yield Static(Content(preview), classes="command")
            yield Static("", id="hidden")
            if request.always_scope is not None:
                always = (
                    f"Always allows: {request.always_scope} "
                    "(a: for this session; p: in this project, saved to .coder/config.json)"
                )
            else:
                always = "This call can only be allowed once."
            yield Static(Content(always), id="always")
            for row in ("allow", "refuse"):
                with Horizontal(classes=f"choices -{row}"):
                    for choice in self.choices:
                        if choice.row == row:
                            yield Button(choice.label, id=choice.button_id, variant=choice.variant, compact=True)
            yield Input(placeholder="Why not? What should it do instead? (Enter sends, Esc cancels the task)",
                        id="reason")
        yield Footer(show_command_palette=False, compact=True)

    def on_mount(self) -> None:
        self.query_one("#yes", Button).focus()
        preview = self.query_one("#preview", VerticalScroll)
        self.watch(preview, "scroll_y", self._count_hidden)
        self.watch(preview, "virtual_size", self._count_hidden)

    def on_resize(self) -> None:
        self.query_one(DialogBox).fit()
        self.call_after_refresh(self._count_hidden)

    def _count_hidden(self) -> None:
        """Says how many lines of the argument and the diff are out of sight, and how to see them."""
        preview = self.query_one("#preview", VerticalScroll)
        above = round(preview.scroll_y)
        below = max(round(preview.max_scroll_y) - above, 0)
        hints = [f"▲ {above} line{'s' * (above != 1)} above"] if above else []
        hints += [f"▼ {below} line{'s' * (below != 1)} below"] if below else []
        text = f"{' · '.join(hints)}: ↑↓ PgUp PgDn scroll" if hints else "Shown in full."
        self.query_one("#hidden", Static).update(text)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # A choice the dialog does not offer is neither in the footer nor answered by its key.
        if action == "decide" and parameters:
            return ApprovalDecision(str(parameters[0])) in {choice.decision for choice in self.choices}
        if action == "toggle_hunk":
            return self.hunks is not None and bool(self.hunks.hunks)
        return True

    def action_decide(self, decision: str) -> None:
        chosen = ApprovalDecision(decision)
        if chosen in {choice.decision for choice in self.choices}:
            self.dismiss(self._answer(chosen))

    def _answer(self, decision: ApprovalDecision, reason: str | None = None) -> ApprovalDecision | ApprovalAnswer:
        """The decision, with the kept hunks when some were dropped: allowing none of them is a refusal."""
        hunks = self.hunks
        if hunks is None or not hunks.dropped_any or decision not in _ALLOWING:
            return ApprovalAnswer(decision, reason) if reason else decision
        if not hunks.kept:
            return ApprovalAnswer(ApprovalDecision.NO, reason) if reason else ApprovalDecision.NO
        return ApprovalAnswer(decision, reason, hunks.kept)

    def action_explain(self) -> None:
        """"No, and tell the model why" (or, with some hunks dropped, "apply the kept ones and say why"): the
        reason line opens; Enter sends the answer with it."""
        self.add_class("-explaining")
        self.query_one("#reason", Input).focus()
        self.call_after_refresh(self.query_one(DialogBox).fit)

    @on(Input.Submitted, "#reason")
    def _explained(self, event: Input.Submitted) -> None:
        reason = event.value.strip() or None
        hunks = self.hunks
        if hunks is not None and hunks.dropped_any and hunks.kept:
            self.dismiss(self._answer(ApprovalDecision.YES, reason))
        else:
            self.dismiss(ApprovalAnswer(ApprovalDecision.NO, reason))

    def action_toggle_hunk(self) -> None:
        hunks = self.hunks
        if hunks is None:
            return
        hunks.toggle()
        partial = hunks.dropped_any and bool(hunks.kept)
        self.query_one("#explain", Button).label = EXPLAIN_DROPS if partial else EXPLAIN_REFUSAL

    def action_move(self, delta: int) -> None:
        """↑/↓: the previous or next hunk of a diff, brought into view; a line otherwise (a command, or past the
        first or last hunk)."""
        preview = self.query_one("#preview", VerticalScroll)
        hunks = self.hunks
        before = hunks.cursor if hunks is not None else None
        hunk = hunks.move(delta) if hunks is not None else None
        if hunk is not None and hunks is not None and hunks.cursor != before:
            preview.scroll_to_widget(hunk, animate=False, top=True)
        elif delta < 0:
            preview.scroll_up(animate=False)
        else:
            preview.scroll_down(animate=False)

    def action_scroll_preview(self, pages: int) -> None:
        for preview in self.query("#preview").results(VerticalScroll):
            if pages < 0:
                preview.scroll_page_up(animate=False)
            else:
                preview.scroll_page_down(animate=False)

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "explain":
            self.action_explain()
            return
        decisions = {choice.button_id: choice.decision for choice in CHOICES}
        self.dismiss(self._answer(decisions.get(event.button.id or "", ApprovalDecision.CANCEL)))
