"""Command arity: how many leading words name "the command" a user means when they answer `always`.

`always` on `git checkout main` should allow `git checkout *`, not the exact string (it would never match
again) and not all of `git` (that would allow `git push --force`). The table says how many words make each
known command's prefix; the longest key that matches wins: `npm` is 2 (`npm install *`), `npm run` is 3
(`npm run dev *`), `python -m` is 3 (`python -m pytest *`). Unknown programs take one word (`./build.sh *`).

Two cases give the exact command instead of a prefix: a command shorter than its arity (`git` alone, or
`npm run`, which lists scripts) and a command with an option inside its prefix (`git -C repo status`), where
a prefix would mean something the user did not see.
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence

from engine.record import record

ARITY: dict[str, int] = {
    # version control and hosting
    "git": 2, "git stash": 3, "git remote": 3, "git submodule": 3, "git worktree": 3, "git config": 3,
    "git lfs": 3, "gh": 3, "hg": 2, "svn": 2,
    # JavaScript
    "npm": 2, "npm run": 3, "npm run-script": 3, "npm exec": 3, "npm init": 3, "npx": 2,
    "pnpm": 2, "pnpm run": 3, "pnpm exec": 3, "pnpm dlx": 3, "yarn": 2, "yarn run": 3, "yarn dlx": 3,
    "bun": 2, "bun run": 3, "bun x": 3, "bunx": 2, "deno": 2, "deno task": 3, "node": 2, "tsc": 1,
    # Python
    "python": 2, "python3": 2, "python -m": 3, "python3 -m": 3, "python -m pip": 4, "python3 -m pip": 4,
    "pip": 2, "pip3": 2, "uv": 2, "uv run": 3, "uv pip": 3, "uvx": 2, "poetry": 2, "poetry run": 3,
    "pipenv": 2, "pipenv run": 3, "hatch": 2, "hatch run": 3, "pdm": 2, "pdm run": 3, "conda": 2, "tox": 1,
    "ruff": 2, "pytest": 1, "mypy": 1,
    # other toolchains
    "cargo": 2, "rustup": 2, "go": 2, "go mod": 3, "make": 2, "cmake": 2, "gradle": 2, "./gradlew": 2,
    "mvn": 2, "./mvnw": 2, "dotnet": 2, "swift": 2, "bundle": 2, "bundle exec": 3, "rake": 2, "rails": 2,
    "mix": 2, "composer": 2, "flutter": 2, "dart": 2, "zig": 2, "stack": 2, "cabal": 2,
    # containers, clusters, clouds
    "docker": 2, "docker compose": 3, "docker container": 3, "docker image": 3, "docker volume": 3,
    "docker network": 3, "docker-compose": 2, "podman": 2, "kubectl": 2, "kubectl rollout": 3, "helm": 2,
    "terraform": 2, "aws": 3, "gcloud": 3, "az": 3,
    # interpreters: the script is part of the command
    "sh": 2, "bash": 2, "zsh": 2, "perl": 2, "ruby": 2, "php": 2,
    # system
    "systemctl": 2, "brew": 2, "apt": 2, "apt-get": 2, "dnf": 2, "yum": 2, "pacman": 2,
}  # fmt: skip
_LONGEST_KEY = max(len(key.split()) for key in ARITY)


@record
class CommandPrefix:
    """What `always` allows for bash: commands starting with these words, or exactly these words."""

    words: tuple[str, ...]
    exact: bool = False

    def matches(self, words: Sequence[str | None]) -> bool:
        """Word by word, so `git checkout *` never allows `git checkoutx`; a run-time word never matches."""
        if self.exact and len(words) != len(self.words):
            return False
        if len(words) < len(self.words):
            return False
        return all(given == wanted for given, wanted in zip(words, self.words, strict=False))

    def describe(self) -> str:
        # Quote words with spaces so that `sh -c 'echo hi'` does not read as four words.
        text = " ".join(shlex.quote(word) if _needs_quotes(word) else word for word in self.words)
        return f"the bash command `{text}`" if self.exact else f"bash commands starting `{text}`"

    def pattern(self) -> str:
        """The same allowance as a `permissions.bash` pattern (matched against unquoted words, see rules)."""
        text = " ".join(self.words)
        return text if self.exact else f"{text} *"


def _needs_quotes(word: str) -> bool:
    return not word or any(char.isspace() for char in word)


def arity_prefix(words: Sequence[str | None]) -> CommandPrefix | None:
    """The prefix `always` offers for a command's words; None when a word of it is known only at run time."""
    if not words or words[0] is None:
        return None
    program = words[0].rsplit("/", 1)[-1] if words[0].startswith("/") else words[0]
    lookup = [program, *words[1:]]
    arity, key_length = 1, 1
    for length in range(min(len(lookup), _LONGEST_KEY), 0, -1):
        if any(word is None for word in lookup[:length]):
            continue
        key = " ".join(word for word in lookup[:length] if word is not None)
        if key in ARITY:
            arity, key_length = ARITY[key], length
            break
    window = list(words[:arity])
    if any(word is None for word in window):
        return None
    literal = tuple(word for word in window if word is not None)
    options_inside = any(word.startswith("-") for word in literal[key_length:])
    if len(words) < arity or options_inside:
        if any(word is None for word in words):
            return None
        return CommandPrefix(tuple(word for word in words if word is not None), exact=True)
    return CommandPrefix(literal)
