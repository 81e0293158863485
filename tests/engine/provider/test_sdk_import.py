"""Issue 14: the SDK imported without running the ``openai.types`` packages' ``__init__`` until a name in them is
asked for; everything the SDK offers is still there. Each check runs in a fresh interpreter (the SDK is imported
once per process)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def run_fresh(code: str) -> str:
    result = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_client_path_leaves_the_type_packages_unrun() -> None:
    out = run_fresh(
        """
        import sys
        from engine.provider.sdk_import import LazyPackage, import_openai
        openai = import_openai()
        client = openai.AsyncOpenAI(api_key="x", base_url="http://127.0.0.1:9/v1")
        client.chat.completions.with_streaming_response
        lazy = sorted(n for n, m in sys.modules.items() if n.startswith("openai.types") and type(m) is LazyPackage)
        print(" ".join(lazy))
        print("openai.types.responses.response" in sys.modules)
        """
    )
    lazy, heavy_loaded = out.splitlines()
    assert "openai.types" in lazy.split() and "openai.types.responses" in lazy.split()
    assert heavy_loaded == "False"


def test_every_name_is_still_there_when_asked_for() -> None:
    out = run_fresh(
        """
        import sys, types
        from engine.provider.sdk_import import import_openai
        openai = import_openai()
        from openai.types.chat import ChatCompletion, ChatCompletionChunk
        from openai.types import Completion
        from openai.types.responses import *
        print(ChatCompletion.__name__, ChatCompletionChunk.__name__, Completion.__name__, Response.__name__)
        from openai.types.model import Model
        print(openai.types.Model is Model, type(sys.modules["openai.types"]).__name__)
        # dir() (like __all__ or a name the __init__ defines itself) runs the __init__ whole: a plain package again.
        print("ChatCompletionMessage" in dir(openai.types.chat), type(sys.modules["openai.types.chat"]) is types.ModuleType,
              sys.modules["openai.types.chat"].__loader__.__class__.__name__)
        """
    )
    names, reexported, plain = out.splitlines()
    assert names == "ChatCompletion ChatCompletionChunk Completion Response"
    assert reexported == "True LazyPackage"  # a re-exported name imports its own module only
    assert plain == "True True SourceFileLoader"


def test_an_sdk_imported_before_is_used_as_it_is() -> None:
    out = run_fresh(
        """
        import sys, openai
        from engine.provider.sdk_import import LazyTypesFinder, import_openai
        assert import_openai() is openai
        print(any(isinstance(f, LazyTypesFinder) for f in sys.meta_path), type(sys.modules["openai.types"]).__name__)
        """
    )
    assert out.split() == ["False", "module"]


def test_warming_leaves_the_chat_resource_unmade_when_the_body_is_sent_raw() -> None:
    """The engine's preload (``warm``) is on the path of a request typed at launch: it makes the client, and not
    the Chat Completions resource with its parsing and streaming helpers, which a raw-body request never uses."""
    out = run_fresh(
        """
        import sys
        from engine.provider.openai_provider import OpenAIProvider
        provider = OpenAIProvider(base_url="http://127.0.0.1:9/v1", api_key="x")
        provider.warm()
        print(provider._takes_raw_body(provider._client()), "openai._client" in sys.modules,
              "openai.resources.chat.completions.completions" in sys.modules,
              "openai.lib.streaming.chat" in sys.modules)
        """
    )
    assert out.split() == ["True", "True", "False", "False"]
