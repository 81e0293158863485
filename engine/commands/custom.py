"""Custom commands (SPEC 23, Claude Code's format): Markdown files in ``.coder/commands/`` (the project's, only in a
trusted folder) and in the user's ``commands/`` folder beside the user config. ``/<file name> args`` sends the
file's body as the user's request, with ``$ARGUMENTS`` replaced by the whole argument text and ``$1``..``$9`` by
the words of it. The user's command wins over the project's of the same name, and a project's command never takes
the name of the user's or a built-in skill (SPEC 19); the one not used is reported. Optional YAML front matter: ``description`` (for ``/help`` and completion) and ``argument-hint``.

A skill runs as ``/<skill-name>`` too: its instructions and the arguments become the request.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Mapping
from pathlib import Path
from typing import Literal

from engine.config.paths import user_config_path
from engine.record import record
from engine.skills.skill import Skill

MAX_COMMAND_FILE_BYTES = 256 * 1024
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
_POSITIONAL = re.compile(r"\$([1-9])")

CommandSource = Literal["project", "user"]


@record
class CustomCommand:
    name: str  # with its slash: "/review"
    description: str
    argument_hint: str
    body: str
    source: CommandSource
    path: Path

    @property
    def usage(self) -> str:
        return f"{self.name} {self.argument_hint}".rstrip()

    def expand(self, arguments: str) -> str:
        return expand_arguments(self.body, arguments)


@record
class CommandProblem:
    path: Path
    reason: str

    def __str__(self) -> str:
        return f"{self.path}: {self.reason}"


@record
class CustomCommands:
    commands: tuple[CustomCommand, ...]
    problems: tuple[CommandProblem, ...]
    # Why the project's commands were left out, when they were.
    skipped_note: str | None = None

    def get(self, name: str) -> CustomCommand | None:
        return next((c for c in self.commands if c.name == name), None)


def user_commands_folder(env: Mapping[str, str]) -> Path:
    """``commands/`` beside the user's config file."""
    return user_config_path(env).parent / "commands"


def project_commands_folder(workspace: Path) -> Path:
    return workspace / ".coder" / "commands"


def discover_commands(
    workspace: Path,
    env: Mapping[str, str],
    *,
    project_trusted: bool,
    reserved: set[str],
    kept_from_project: Mapping[str, str] | None = None,
) -> CustomCommands:
    """The user's commands, then the project's (when its folder is trusted). A built-in command (``reserved``) is
    never shadowed; a project's command never replaces the user's of the same name, nor a name in
    ``kept_from_project`` (the user's and built-in skills, with what each is)."""
    found: dict[str, CustomCommand] = {}
    problems: list[CommandProblem] = []
    folders: list[tuple[Path, CommandSource]] = [(user_commands_folder(env), "user")]
    project = project_commands_folder(workspace)
    note = None
    if project_trusted:
        folders.append((project, "project"))
    elif project.is_dir() and any(project.glob("*.md")):
        note = f"the commands in {project} are ignored until you trust this folder (/trust)"
    for folder, source in folders:
        for path in sorted(folder.glob("*.md")) if folder.is_dir() else ():
            try:
                command = read_command(path, source)
            except ValueError as exc:
                problems.append(CommandProblem(path, str(exc)))
                continue
            if command.name in reserved:
                problems.append(CommandProblem(path, f"{command.name} is a built-in command; rename the file"))
                continue
            if source == "project" and (mine := _kept(command.name, found, kept_from_project or {})):
                problems.append(CommandProblem(path, f"not used: {mine} of that name wins; rename the file"))
                continue
            found[command.name] = command
    return CustomCommands(tuple(sorted(found.values(), key=lambda c: c.name)), tuple(problems), note)


def _kept(name: str, found: Mapping[str, CustomCommand], kept: Mapping[str, str]) -> str | None:
    """What a project's command of this name would hide from the user, if anything."""
    if name in found:
        return f"your own command ({found[name].path})"
    return kept.get(name)


def read_command(path: Path, source: CommandSource) -> CustomCommand:
    """One command file; ``ValueError`` saying what is wrong with it."""
    name = path.stem
    if not _NAME.match(name):
        raise ValueError(f"{name!r} cannot be a command name: use letters, digits, '-', '_' or '.'")
    try:
        if path.stat().st_size > MAX_COMMAND_FILE_BYTES:
            raise ValueError(f"the file is larger than {MAX_COMMAND_FILE_BYTES} bytes")
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ValueError(f"not UTF-8 text (byte {exc.start} cannot be decoded)") from exc
    except OSError as exc:
        raise ValueError(f"cannot read the file: {exc.strerror or exc}") from exc
    front, body = _split_front_matter(text)
    if not body.strip():
        raise ValueError("the body is empty: write the request after the front matter")
    description = _text_field(front, "description") or _first_line(body)
    return CustomCommand(
        name=f"/{name}",
        description=description,
        argument_hint=_text_field(front, "argument-hint"),
        body=body.strip(),
        source=source,
        path=path,
    )


def expand_arguments(body: str, arguments: str) -> str:
    """``$ARGUMENTS`` is the whole argument text, ``$1``..``$9`` its words (quotes group words, as in a shell).
    A body that uses neither gets the arguments appended, so they are never lost."""
    arguments = arguments.strip()
    try:
        words = shlex.split(arguments)
    except ValueError:
        words = arguments.split()
    used = "$ARGUMENTS" in body or bool(_POSITIONAL.search(body))
    expanded = body.replace("$ARGUMENTS", arguments)
    expanded = _POSITIONAL.sub(lambda m: words[int(m.group(1)) - 1] if int(m.group(1)) <= len(words) else "", expanded)
    if arguments and not used:
        expanded += f"\n\nARGUMENTS: {arguments}"
    return expanded


def skill_request(skill: Skill, arguments: str) -> str:
    """``/<skill-name> args``: the skill's instructions for this request, as the ``skill`` tool would give them."""
    request = arguments.strip() or f"Follow the {skill.name} skill."
    return (
        f"{request}\n\n<skill name=\"{skill.name}\" folder=\"{skill.folder}\">\n{skill.body}\n</skill>"
    )


def _split_front_matter(text: str) -> tuple[dict[str, object], str]:
    lines = text.splitlines()
    if not lines or lines[0].strip() != "---":
        return {}, text
    end = next((i for i in range(1, len(lines)) if lines[i].strip() in ("---", "...")), None)
    if end is None:
        raise ValueError("the front matter is never closed: add a '---' line after it")
    import yaml

    try:
        data = yaml.safe_load("\n".join(lines[1:end]))
    except yaml.YAMLError as exc:
        raise ValueError(f"invalid YAML front matter: {getattr(exc, 'problem', None) or exc}") from exc
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ValueError(f"the front matter must be a mapping of keys to values, not a {type(data).__name__}")
    return data, "\n".join(lines[end + 1 :])


def _text_field(front: dict[str, object], key: str) -> str:
    value = front.get(key)
    if value is None:
        return ""
    if not isinstance(value, str | int | float):
        raise ValueError(f"front matter {key!r} must be text, not a {type(value).__name__}")
    return " ".join(str(value).split())


def _first_line(body: str) -> str:
    line = next((line.strip() for line in body.splitlines() if line.strip()), "")
    return line if len(line) <= 80 else line[:79] + "…"
