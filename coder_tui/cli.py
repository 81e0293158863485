"""The ``coder-tui`` console script: parses arguments, then runs one input headless or opens the full screen.

Kept free of Textual and of the engine's heavy imports so that both paths start fast.
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
from pathlib import Path

MODES = ("plan", "default", "auto-edit", "build", "yolo")
UI_SWITCH_INTERVAL_S = 0.001


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="coder-tui",
        usage="coder-tui [options] [PROMPT]\n       coder-tui acp",
        description="A terminal coding agent for any OpenAI-compatible model server.",
        epilog="commands:\n"
        "  coder-tui acp         speak the Agent Client Protocol on stdin/stdout, for an editor to start (Zed,\n"
        "                        JetBrains IDEs, Toad); see coder-tui acp --help\n\n"
        "With no -p and stdin not a terminal, the whole of stdin is the input.\n"
        "Environment: OPENAI_API_KEY, OPENAI_BASE_URL, CODER_MODEL.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "opening_prompt", nargs="?", metavar="PROMPT", help="open the full screen with this request already sent"
    )
    parser.add_argument("-p", "--prompt", metavar="TEXT", help="run this one input without the full screen and exit")
    parser.add_argument("--mode", choices=MODES, help="permission mode (build is auto-edit)")
    parser.add_argument(
        "--output-format", choices=("text", "json"), default="text", help="headless output: text, or JSON lines"
    )
    parser.add_argument("--model", metavar="NAME", help="the model to use (overrides config and CODER_MODEL)")
    parser.add_argument(
        "--provider", metavar="NAME", help="use this provider profile (the configuration's providers)"
    )
    parser.add_argument(
        "--max-budget-usd", metavar="N", type=float,
        help="stop a turn before a request would take this session's spend past N US dollars (budget_usd)",
    )
    parser.add_argument("--cwd", metavar="DIR", help="the workspace root (default: the current directory)")
    parser.add_argument(
        "--trust",
        action="store_true",
        help="trust this folder's own .coder/config.json for this run (its provider, mode, permissions and other "
        "power-widening keys apply); not remembered: /trust on remembers it",
    )
    parser.add_argument(
        "--fork",
        action="store_true",
        help="with --continue or --resume: continue in a new session that copies that one's history (works while "
        "another coder-tui process has the session open)",
    )
    parser.add_argument(
        "--check-server",
        action="store_true",
        help="ask the configured model server what it is, whether it streams, how it sends tool calls and its "
        "context window; print a short report to paste into a bug report (no secrets in it), then exit",
    )
    parser.add_argument(
        "--worktree",
        nargs="?",
        const="",
        metavar="NAME",
        help="work on a new git worktree and branch coder/NAME (a name is made without one): with -p the input runs "
        "there as an agent and the branch is printed at the end; in the full screen the whole session works there",
    )
    parser.add_argument(
        "--attach",
        action="store_true",
        help="come back to the agents left running when you quit (the workspace's engine, still running): the full "
        "screen shows its main session and the agents as they are",
    )
    which = parser.add_mutually_exclusive_group()
    which.add_argument(
        "-r", "--resume", metavar="ID|WORDS", nargs="?", const="",
        help="resume a saved session of this workspace; with no ID, choose one from a list (words that are no ID: "
        "the list searching them)",
    )
    which.add_argument(
        "-c", "--continue", dest="cont", action="store_true",
        help="resume the latest session of this workspace (the full screen: the latest made in the full screen)"
    )
    parser.add_argument("--version", action="version", version=f"coder-tui {_version()}")
    return parser


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("coder-tui")
    except PackageNotFoundError:
        return "(not installed)"


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["acp"]:
        return run_acp(argv[1:])
    parser = build_parser()
    args = parser.parse_args(argv)
    workspace = Path(args.cwd).expanduser() if args.cwd else Path.cwd()
    if not workspace.is_dir():
        parser.error(f"--cwd {args.cwd}: not a directory")
    workspace = workspace.resolve()
    model = args.model
    if args.provider:
        model = _profile_model(parser, workspace, args.provider, args.model, trust=args.trust)
    if args.max_budget_usd is not None:
        if not args.max_budget_usd > 0:
            parser.error(f"--max-budget-usd {args.max_budget_usd}: give an amount above 0")
        os.environ["CODER_BUDGET_USD"] = repr(args.max_budget_usd)  # the engine reads it as budget_usd
    if args.fork and not (args.cont or args.resume):
        parser.error("--fork copies a saved session: give --continue or --resume ID with it")
    if args.attach:
        return attach(parser, workspace, args)
    if args.opening_prompt is not None and (args.prompt is not None or args.check_server):
        parser.error(f"PROMPT ({args.opening_prompt!r}) opens the full screen: give it to -p instead to run headless")

    text: str | None = args.prompt
    if args.check_server:
        text = "/doctor"  # the same check, run headless
    elif text is None and args.opening_prompt is None and not sys.stdin.isatty():
        text = sys.stdin.read()
    from engine.home_folder import home_workspace_problem

    problem = home_workspace_problem(workspace)
    if text is not None:
        if not text.strip():
            parser.error("the input is empty (give -p TEXT or pipe text on stdin)")
        if problem is not None and not args.check_server:
            parser.error(
                f"the workspace {problem}: coder-tui never works in the home folder or above it; run it in a "
                "project folder, or name one with --cwd DIR"
            )
        if args.resume == "":
            parser.error("--resume needs a session ID here (the list to choose from is the full screen's); "
                         "see the IDs with: coder-tui -p /resume")
        from coder_tui.launch.headless import run_headless_sync

        return run_headless_sync(
            text,
            workspace=workspace,
            mode=args.mode,
            model=model,
            output_format=args.output_format,
            resume=args.resume,
            cont=args.cont,
            trust=args.trust,
            fork=args.fork,
            worktree=args.worktree,
        )
    if args.worktree is not None:
        workspace = _session_worktree(parser, workspace, args.worktree)
    if args.output_format != "text":
        parser.error("--output-format applies to headless runs only (-p or piped stdin)")
    prepare_ui_process()
    mode = args.mode
    if problem is not None:
        from coder_tui.launch.workspace_choice import choose_workspace

        chosen = choose_workspace(workspace, problem)
        if chosen is None:
            return 1
        workspace, mode = chosen.workspace, "plan" if chosen.read_only else mode
    # The engine process starts before the app is even imported: it loads on the other core meanwhile.
    from coder_tui.link.engine_process import EngineProcesses

    # Until the first frame is drawn, no collection passes over the objects start-up makes (modules, the app): they
    # live as long as the process; the screen freezes them and switches collection back on (``CollectionPacer``).
    gc.disable()

    # The session it opens with: the engine sends its history before it has loaded (a fork makes a new one first).
    engine = EngineProcesses(
        workspace=workspace, mode=mode, model=model, trust=args.trust,
        resume=None if args.fork else args.resume or None, cont=args.cont and not args.fork,
    )
    from coder_tui.app import run_tui

    return run_tui(
        workspace=workspace, mode=mode, model=model, resume=args.resume, cont=args.cont, engine=engine,
        fork=args.fork, prompt=args.opening_prompt,
    )


def attach(parser: argparse.ArgumentParser, workspace: Path, args: argparse.Namespace) -> int:
    """``--attach``: the full screen on the engine of ``workspace`` left running (SPEC 26); 1 when there is none to
    attach to, or another UI is attached to it."""
    given = [name for name, value in (
        ("PROMPT", args.opening_prompt), ("-p", args.prompt), ("--resume", args.resume), ("--continue", args.cont),
        ("--fork", args.fork), ("--worktree", args.worktree), ("--mode", args.mode), ("--model", args.model),
        ("--provider", args.provider), ("--check-server", args.check_server), ("--trust", args.trust),
    ) if value not in (None, False)]
    if given:
        parser.error(f"--attach takes the running engine as it is: {', '.join(given)} cannot go with it")
    from coder_tui.link.engine_socket import AttachedEngines, AttachError, attach_engine

    try:
        attached = attach_engine(workspace)
    except AttachError as exc:
        print(f"coder-tui: {exc}", file=sys.stderr)
        return 1
    prepare_ui_process()
    from coder_tui.app import run_tui

    return run_tui(workspace=workspace, engine=AttachedEngines(attached))


def _session_worktree(parser: argparse.ArgumentParser, workspace: Path, name: str) -> Path:
    """``--worktree [NAME]`` in the full screen: the whole session works on a new git worktree and branch
    ``coder/NAME`` of the folder (SPEC 26); its folder is the workspace from then on."""
    from engine.agents.worktree import WorktreeError, add_worktree, free_name

    try:
        made = add_worktree(workspace, name or free_name(workspace, "session"), os.environ)
    except WorktreeError as exc:
        parser.error(f"--worktree: {exc}")
    print(f"coder-tui: working on branch {made.branch} in {made.root}", file=sys.stderr)
    return made.workspace


def prepare_ui_process() -> None:
    """What the full screen's process sets before Textual is imported (``coder-tui``, and ``benchmarks/one_process.py``
    which runs the same app with its engine in the same interpreter)."""
    # Textual waits this long after Esc for the rest of an escape sequence before it reports the Esc key (100 ms by
    # default): Esc stops a task, so it should act at once. A terminal sends a sequence in one write; set ESCDELAY
    # higher on a slow link.
    os.environ.setdefault("ESCDELAY", "25")
    # Textual's frame timer waits one to two periods after a frame before it draws the next (Timer's catch-up): at
    # its default 60 frames a second, a key typed just after a frame (a streamed answer draws several a second) was
    # drawn up to 33 ms later; at 240, 8 ms. A frame is drawn only when something changed (Textual uses the figure
    # for nothing else but the speed-scaled auto-scroll of a mouse selection), so the higher cap costs nothing idle.
    os.environ.setdefault("TEXTUAL_FPS", "240")
    # While an answer's Markdown renders in a worker thread, the loop that handles a key and draws its frame gets
    # the interpreter's lock back only when the worker's switch interval runs out: 5 ms by default, and a frame
    # waits for several. At 1 ms a key typed while a long answer streams is shown a few milliseconds sooner (p95
    # 21-25 -> 19-20 ms, max 48-52 -> 41-44 ms in ``benchmarks/pty_latency.py``); this process does no other
    # long work in threads, so the extra switches cost nothing measurable.
    sys.setswitchinterval(UI_SWITCH_INTERVAL_S)


def run_acp(argv: list[str]) -> int:
    """``coder-tui acp``: an Agent Client Protocol agent on stdin/stdout, for Zed, JetBrains IDEs and Toad."""
    parser = argparse.ArgumentParser(
        prog="coder-tui acp",
        description="Speak the Agent Client Protocol on stdin/stdout (for an editor to start). Each session's "
        "workspace is the cwd the client gives; the log goes to .coder/logs/acp.log.",
    )
    parser.parse_args(argv)
    from engine.server.acp import serve

    return serve()


def _profile_model(
    parser: argparse.ArgumentParser, workspace: Path, provider: str, model: str | None, *, trust: bool
) -> str:
    """``--provider NAME [--model X]`` as the model name ``NAME:X`` the engine resolves; an unknown profile is a
    usage error that lists the configured ones."""
    from engine.config.loader import load_config
    from engine.errors import ConfigError
    from engine.provider.profiles import check_profile

    try:
        check_profile(provider, load_config(workspace, trust=trust).config)
    except ConfigError as exc:
        from coder_tui.link.terminal_text import terminal_text

        parser.error(f"--provider {provider}: {terminal_text(str(exc))}")  # it may quote a repository's config
    return f"{provider}:{model or ''}"


if __name__ == "__main__":
    sys.exit(main())
