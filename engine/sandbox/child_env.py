"""The environment of a bash command that runs without asking (SPEC 13): scrubbed, with git's command hooks off.

A read-only git command (`git status`, `git diff`, `git log -p`) still runs programs that configuration names: the
fsmonitor, hooks (`post-index-change`), the pager, an external diff, diff and filter drivers (`textconv`, `clean`,
`process`), the signature verifier, transports. A hostile `.git/config` (or a `GIT_*` variable) turns any of them
into "run this command". Two things close it:

- Nothing from the parent environment that changes what programs run or load reaches the command: `GIT_*`, `LD_*`,
  `DYLD_*`, `BASH_ENV`, `ENV`, `BASH_FUNC_*` (exported functions), `PROMPT_COMMAND`, `SHELLOPTS`, `CDPATH`...
- git is given, through `GIT_CONFIG_COUNT`/`GIT_CONFIG_KEY_n`/`GIT_CONFIG_VALUE_n`, settings that act as `git -c`
  and so win over every config file, and that reach git processes git itself starts (submodules): the fsmonitor
  and hooks off, `cat` as pager, no transport at all (`protocol.allow=never`: no lazy fetch, no ssh), a plain diff
  for an external diff the repository's config names, `cat` for its textconv and filter drivers, no signature
  checks by default, implicit bare repositories refused (`safe.bareRepository=explicit`).
  Environment variables rather than inserting `-c` into the command: the line is the model's text and stays as the
  user saw it, and `/usr/bin/git`, `command git` or a `git` in a script all get the same settings. A line that
  changes them (`unset`, `env -u`...) still runs confined: what git then starts cannot write outside the temp folder
  or reach the network. Setting a `GIT_*` or `LD_*` variable asks (``engine.policy.bash_risk``, `env_override`).

Driver names come from the config files (and the files they include) of every repository git could use from
inside the workspace, nested ones and submodules included (``engine.sandbox.git_repos``), read here with a small
INI reader: a bounded walk and a few small files per command, no subprocess.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path

from engine.sandbox import git_repos

# Variables that change which program runs or what it loads, besides `PATH`: git and an unasked command never inherit
# them, and setting one (or `PATH`) in front of a command makes it ask (engine.policy.bash_risk, `env_override`).
LOADING_PREFIXES = ("GIT_", "LD_", "DYLD_", "BASH_FUNC_")
LOADING_VARIABLES = frozenset(
    {
        "BASH_ENV", "ENV", "PROMPT_COMMAND", "SHELLOPTS", "BASHOPTS", "IFS", "PS4", "PAGER", "MANPAGER", "LESSOPEN",
        "LESSCLOSE", "EDITOR", "VISUAL", "PYTHONSTARTUP", "PYTHONPATH", "PERL5OPT", "PERL5LIB", "RUBYOPT",
        "NODE_OPTIONS",
    }
)  # fmt: skip
# Besides those, what would move where a shell's `cd`, globs, trace output or temp files go.
_DROPPED = LOADING_VARIABLES | {"CDPATH", "GLOBIGNORE", "BASH_XTRACEFD", "TMPDIR", "TMP", "TEMP"}
# A plain diff for the external diff programs git would run: (path old-file old-hex old-mode new-file new-hex new-mode).
PLAIN_DIFF = (
    'coder_plain_diff() { printf "diff --git a/%s b/%s\\n" "$1" "$1"; '
    'diff -u --label "a/$1" --label "b/$1" -- "$2" "$5"; true; }; coder_plain_diff'
)
FIXED_GIT_SETTINGS: tuple[tuple[str, str], ...] = (
    ("core.fsmonitor", "false"),
    ("core.hooksPath", "/dev/null"),
    ("core.pager", "cat"),
    ("core.sshCommand", "false"),
    ("core.askPass", "false"),
    ("credential.helper", ""),
    ("protocol.allow", "never"),
    ("log.showSignature", "false"),
    ("gpg.program", "gpg"),
    ("gpg.ssh.program", "ssh-keygen"),
    ("gpg.x509.program", "gpgsm"),
    ("safe.bareRepository", "explicit"),
    ("status.submoduleSummary", "false"),
)
# Driver sections whose subsections name programs: diff.<name>.command / textconv, filter.<name>.clean / smudge /
# process. Each found driver gets harmless values.
_DRIVER_SETTINGS = {
    "diff": (("command", PLAIN_DIFF), ("textconv", "cat")),
    "filter": (("clean", "cat"), ("smudge", "cat"), ("process", ""), ("required", "false")),
}
# SPEC 13: names that look like they hold secrets; approved commands lose them unless `bash.env` names them.
SECRET_NAME = re.compile(
    r"KEY|TOKEN|SECRET|PASS|CREDENTIAL|AUTH(?!OR)|_DSN$|^DSN$|DATABASE_URL|JWT|COOKIE|PRIVATE|_PAT$|^PAT$|_PWD$",
    re.IGNORECASE,
)
# SPEC 13: the only names an unasked command's environment is built from (with `bash.env`'s).
ALLOWED_NAMES = frozenset({"PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "TERM", "TZ", "TMPDIR", "PWD",
                           "COLUMNS", "LINES", "LANGUAGE"})  # fmt: skip
_SECTION = re.compile(r'^\s*\[\s*([A-Za-z0-9.-]+)(?:\s+"((?:[^"\\]|\\.)*)")?\s*\]')
_KEY = re.compile(r"^\s*([A-Za-z][A-Za-z0-9-]*)\s*(?:=\s*(.*?))?\s*$")
_MAX_CONFIG_FILES = 32


def unasked_environment(
    parent: Mapping[str, str], workspace: Path, tmpdir: str, extra_names: Iterable[str] = ()
) -> dict[str, str]:
    """The environment for a command that runs without asking in ``workspace``: built from ``ALLOWED_NAMES``,
    ``LC_*`` and ``extra_names`` (the config's `bash.env`) only, so no secret of the parent's, whatever its name,
    reaches `env`, `printenv`, `set` or ``/proc/self/environ``; git's command hooks off."""
    names = ALLOWED_NAMES | set(extra_names)
    kept = {name: value for name, value in parent.items() if name in names or name.startswith("LC_")}
    # The home folder is not readable: git is told there is no global config rather than warn that it cannot read it.
    return {**git_environment(workspace, kept), "TMPDIR": tmpdir, "GIT_CONFIG_GLOBAL": "/dev/null"}


def approved_environment(parent: Mapping[str, str], tmpdir: str, extra_names: Iterable[str] = ()) -> dict[str, str]:
    """The environment for a command the user approved: the parent's, minus the names that look like secrets
    (``SECRET_NAME``) unless ``extra_names`` (`bash.env`) names them."""
    named = set(extra_names)
    kept = {name: value for name, value in parent.items() if name in named or not SECRET_NAME.search(name)}
    return {**kept, "TMPDIR": tmpdir}


def git_environment(workspace: Path, parent: Mapping[str, str] | None = None) -> dict[str, str]:
    """``parent`` (default: this process's environment) scrubbed, with git's command hooks off: also what coder's
    own git calls (the system prompt's status, `/diff`) run with, since they run in the same repository unasked."""
    source = os.environ if parent is None else parent
    env = {
        name: value
        for name, value in source.items()
        if name not in _DROPPED and not name.startswith(LOADING_PREFIXES)
    }
    env.update(PAGER="cat", GIT_PAGER="cat", GIT_TERMINAL_PROMPT="0")
    settings = [*FIXED_GIT_SETTINGS, *driver_settings(workspace)]
    env["GIT_CONFIG_COUNT"] = str(len(settings))
    for index, (key, value) in enumerate(settings):
        env[f"GIT_CONFIG_KEY_{index}"] = key
        env[f"GIT_CONFIG_VALUE_{index}"] = value
    return env


def driver_settings(workspace: Path) -> list[tuple[str, str]]:
    """Harmless values for the external diff and every diff and filter driver that the config files of any
    repository under the workspace define (``engine.sandbox.git_repos``: nested ones, submodules, worktrees); git's
    own diff stays in use when none names an external one, and the scan saw the whole workspace."""
    settings: list[tuple[str, str]] = []
    seen: set[tuple[str, str | None]] = set()
    repositories = git_repos.scan(workspace)
    if not repositories.complete:  # a repository may lie beyond what the scan saw: no external diff at all
        seen.add(("diff", "external"))
        settings.append(("diff.external", PLAIN_DIFF))
    for section, subsection, key in _scan(list(repositories.config_files)):
        if section == "diff" and subsection is None and key == "external" and (section, key) not in seen:
            seen.add((section, key))
            settings.append(("diff.external", PLAIN_DIFF))
        elif section in _DRIVER_SETTINGS and subsection and (section, subsection) not in seen:
            seen.add((section, subsection))
            settings.extend((f"{section}.{subsection}.{k}", value) for k, value in _DRIVER_SETTINGS[section])
    return settings


def _scan(files: list[Path]) -> Iterator[tuple[str, str | None, str | None]]:
    """(section, subsection, key) of every section header and key, following `include.path`/`includeIf.*.path`."""
    queue = list(files)
    visited: set[Path] = set()
    while queue and len(visited) < _MAX_CONFIG_FILES:
        path = queue.pop(0)
        if path in visited:
            continue
        visited.add(path)
        text = git_repos.read_small(path)
        if text is None:
            continue
        section, subsection = "", None
        for line in text.splitlines():
            header = _SECTION.match(line)
            if header:
                section, subsection = header.group(1).lower(), header.group(2)
                if "." in section and subsection is None:
                    section, _, subsection = section.partition(".")  # the old `[diff.name]` form
                if subsection is not None:
                    subsection = subsection.replace('\\"', '"').replace("\\\\", "\\")
                yield section, subsection, None
                line = line[header.end() :]
            key = _KEY.match(line)
            if key is None:
                continue
            yield section, subsection, key.group(1).lower()
            if key.group(1).lower() == "path" and (section == "include" or section.startswith("includeif")):
                queue.append(_include_path(path, (key.group(2) or "").strip('"')))


def _include_path(config: Path, value: str) -> Path:
    expanded = os.path.expanduser(value)
    return Path(expanded) if os.path.isabs(expanded) else config.parent / expanded
