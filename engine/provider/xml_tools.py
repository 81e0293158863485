"""Tool calls for models without native tool calling (SPEC 17, ``tool_call_format: "xml"``).

The tools are described in the system prompt, the model writes ``<tool_use name="...">{json}</tool_use>`` blocks in
its text, and results go back as ``<tool_result name="..." id="...">...</tool_result>`` blocks in a user message.
All of that exists only on the wire: ``XmlToolCallingProvider`` wraps the real provider, rewrites each request
(tools into the system prompt, tool calls and results into text) and turns the streamed text back into the ordinary
``TextChunk``/``ToolCallChunk`` stream. The turn pipeline, the tool chain and the session JSON (kept in OpenAI form)
never know the difference.
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import aclosing
from typing import Any

from engine.messages import ToolDef
from engine.provider.base import ChatProvider, ChatRequest, FinishChunk, StreamChunk, TextChunk, ToolCallChunk
from engine.provider.think_tags import partial_tag_length
from engine.provider.wrapping import WrappingProvider

OPEN_TAG = "<tool_use"
CLOSE_TAG = "</tool_use>"
# An opening tag longer than this is not one: the text is shown as it is instead of being held back.
_MAX_OPEN_TAG_CHARS = 200
_NAME_ATTRIBUTE = re.compile(r"""\bname\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s/>]+))""")
_FENCE = re.compile(r"^```[\w-]*\s*\n?(.*?)\n?```$", re.DOTALL)

ParsedChunk = TextChunk | ToolCallChunk

_PROMPT = """# Tools
You can use tools. This connection has no native tool calling: you call a tool by writing a block in your answer, \
exactly in this form:

<tool_use name="TOOL_NAME">{"argument": "value"}</tool_use>

- The block holds one JSON object: the tool's arguments, matching its parameters schema below ({} when it takes none).
- You may write a short explanation first. To call several tools, write several blocks one after another.
- After your last block, stop writing and wait. The results come back in the next user message, one block per call, \
in order: <tool_result name="TOOL_NAME" id="CALL_ID">{"ok": true, ...}</tool_result>. Never write a tool_result \
block yourself.
- Do not put the blocks in code fences. When the work is done, answer in plain text without any block.

## Available tools"""


def render_tools_for_prompt(tool_defs: Sequence[ToolDef]) -> str:
    """The tools section of the system prompt: the call format, then each tool with its JSON schema."""
    sections = [_PROMPT]
    for tool in tool_defs:
        schema = json.dumps(tool.parameters, ensure_ascii=False)
        sections.append(f"### {tool.name}\n{tool.description}\nParameters (JSON schema): {schema}")
    return "\n\n".join(sections)


def render_tool_use(name: str, arguments: str) -> str:
    return f'<tool_use name="{name}">{arguments.strip() or "{}"}</tool_use>'


def render_tool_result(name: str, call_id: str, content: str) -> str:
    return f'<tool_result name="{name}" id="{call_id}">\n{content}\n</tool_result>'


def to_xml_wire(messages: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The OpenAI-form history (wire dicts) rewritten for a model without tool calling: an assistant message's tool
    calls become ``<tool_use>`` blocks after its text, and each run of ``tool`` messages becomes one user message of
    ``<tool_result>`` blocks. A user message right after the results joins them, since strict chat templates
    refuse two user messages in a row."""
    converted: list[dict[str, Any]] = []
    names: dict[str, str] = {}
    results_message: dict[str, Any] | None = None
    for message in messages:
        role = message.get("role")
        if role == "tool":
            call_id = str(message.get("tool_call_id") or "")
            name = message.get("name") or names.get(call_id, "unknown")
            block = render_tool_result(name, call_id, message.get("content") or "")
            if results_message is None:
                results_message = {"role": "user", "content": block}
                converted.append(results_message)
            else:
                results_message["content"] += "\n\n" + block
            continue
        if role == "user" and results_message is not None:
            results_message["content"] += "\n\n" + (message.get("content") or "")
            results_message = None
            continue
        results_message = None
        if role == "assistant" and message.get("tool_calls"):
            blocks = []
            for call in message["tool_calls"]:
                function = call.get("function") or {}
                names[call.get("id", "")] = function.get("name", "")
                blocks.append(render_tool_use(function.get("name", ""), function.get("arguments") or ""))
            text = (message.get("content") or "").strip()
            converted.append({"role": "assistant", "content": "\n\n".join([text, *blocks] if text else blocks)})
            continue
        converted.append(dict(message))
    return converted


def with_tools_prompt(messages: Sequence[dict[str, Any]], tools_prompt: str) -> list[dict[str, Any]]:
    """``messages`` with ``tools_prompt`` appended to the system message (one is added when there is none)."""
    result = [dict(message) for message in messages]
    if result and result[0].get("role") == "system":
        result[0]["content"] = f"{result[0].get('content') or ''}\n\n{tools_prompt}".lstrip()
    else:
        result.insert(0, {"role": "system", "content": tools_prompt})
    return result


def new_call_id() -> str:
    return f"call_{uuid.uuid4().hex[:16]}"


class XmlToolCallParser:
    """Turns streamed text, cut anywhere, into text to show and complete tool calls.

    Text outside blocks is passed on as soon as it arrives, except the tail that could be the start of an opening
    tag (``<``, ``<tool_``...) and trailing white space, which waits for the next delta to say what it is. A block
    is held until its closing tag, then becomes one ``ToolCallChunk`` with every field set. Blocks that are not
    tool calls after all come back as text, so nothing the model wrote is lost.
    """

    def __init__(self, new_id: Callable[[], str] = new_call_id) -> None:
        self._new_id = new_id
        self._buffer = ""
        # The opening tag of the block being read, and the name it gave (None: look for it in the body).
        self._open_tag: str | None = None
        self._name: str | None = None
        # Where to look for the block's closing tag: past text already searched, and past any closing tag that
        # turned out to be inside a JSON string.
        self._close_search_from = 0
        self._calls = 0
        self._pending_space = ""
        self._after_call = False
        self._shown_text = False

    @property
    def calls(self) -> int:
        """How many tool calls were parsed so far."""
        return self._calls

    def feed(self, text: str) -> list[ParsedChunk]:
        self._buffer += text
        out: list[ParsedChunk] = []
        while self._step(out):
            pass
        return out

    def finish(self) -> list[ParsedChunk]:
        """Ends the stream. A block left open (a stop sequence ate its closing tag) still counts when its body
        is complete JSON; anything else left over is text."""
        out: list[ParsedChunk] = []
        if self._open_tag is not None:
            body, self._buffer = self._buffer, ""
            if not self._emit_call(body, out, closed=False):
                self._text(self._open_tag + body, out)
            self._open_tag = None
            self._close_search_from = 0
        if self._buffer:
            self._text(self._buffer, out)
            self._buffer = ""
        self._pending_space = ""
        return out

    def _step(self, out: list[ParsedChunk]) -> bool:
        """Consumes what can be decided now; True when it should be called again."""
        if self._open_tag is not None:
            end = self._buffer.find(CLOSE_TAG, self._close_search_from)
            if end < 0:
                # A long argument arrives in many deltas: search only the new text (and a tag it may complete).
                self._close_search_from = max(self._close_search_from, len(self._buffer) - len(CLOSE_TAG) + 1)
                return False
            if _inside_json_string(self._buffer[:end]):
                # The tag is part of an argument (a file that mentions it): the block ends at a later one.
                self._close_search_from = end + len(CLOSE_TAG)
                return True
            body, self._buffer = self._buffer[:end], self._buffer[end + len(CLOSE_TAG) :]
            self._close_search_from = 0
            if not self._emit_call(body, out, closed=True):
                self._text(self._open_tag + body + CLOSE_TAG, out)
            self._open_tag = None
            return True
        start = self._buffer.find(OPEN_TAG)
        if start < 0:
            keep = partial_tag_length(self._buffer, OPEN_TAG)
            self._text(self._buffer[: len(self._buffer) - keep], out)
            self._buffer = self._buffer[len(self._buffer) - keep :]
            return False
        self._text(self._buffer[:start], out)
        self._buffer = self._buffer[start:]
        after = self._buffer[len(OPEN_TAG) : len(OPEN_TAG) + 1]
        if not after:
            return False
        end = self._buffer.find(">")
        if not (after.isspace() or after in "/>") or (end < 0 and len(self._buffer) > _MAX_OPEN_TAG_CHARS):
            # "<tool_user", or a "<tool_use" that never closes its tag: ordinary text.
            self._text(self._buffer[0], out)
            self._buffer = self._buffer[1:]
            return True
        if end < 0:
            return False
        tag, self._buffer = self._buffer[: end + 1], self._buffer[end + 1 :]
        found = _NAME_ATTRIBUTE.search(tag)
        self._name = next((group for group in found.groups() if group is not None), None) if found else None
        if tag.endswith("/>"):
            self._open_tag = None
            if not self._emit_call("", out, closed=True):
                self._text(tag, out)
            return True
        self._open_tag = tag
        return True

    def _emit_call(self, body: str, out: list[ParsedChunk], *, closed: bool) -> bool:
        """Appends the call the block describes; False when it describes none."""
        text = body.strip()
        fenced = _FENCE.match(text)
        if fenced:
            text = fenced.group(1).strip()
        name = self._name
        arguments = text or "{}"
        if not name or not closed:
            parsed = _json_object(text)
            if parsed is None:
                return False
            if not name:
                # Some models put everything in the body: {"name": "read", "arguments": {...}}.
                name = parsed.get("name") if isinstance(parsed.get("name"), str) else None
                inner = next((parsed[key] for key in ("arguments", "parameters", "input") if key in parsed), {})
                if not name or not isinstance(inner, dict):
                    return False
                arguments = json.dumps(inner, ensure_ascii=False)
        self._pending_space = ""
        self._after_call = True
        out.append(ToolCallChunk(index=self._calls, id=self._new_id(), name=name, arguments=arguments))
        self._calls += 1
        return True

    def _text(self, text: str, out: list[ParsedChunk]) -> None:
        """Passes text on; white space at its end waits (dropped if a call or the end follows), and white space
        right after a call is dropped, so the message's text has no stray blank lines where the blocks were."""
        text = self._pending_space + text
        if self._after_call:
            text = text.lstrip()
        body = text.rstrip()
        self._pending_space = text[len(body) :]
        if not body:
            return
        if self._after_call and self._shown_text:
            # Text before and after the blocks stays two paragraphs, as the model wrote them.
            body = "\n\n" + body
        self._after_call = False
        self._shown_text = True
        if out and isinstance(out[-1], TextChunk):
            out[-1] = TextChunk(out[-1].text + body)
        else:
            out.append(TextChunk(body))


class XmlToolCallingProvider(WrappingProvider):
    """A ``ChatProvider`` that offers tools to a model without native tool calling, through ``inner``."""

    def __init__(self, inner: ChatProvider, new_id: Callable[[], str] = new_call_id) -> None:
        self._inner = inner
        self._new_id = new_id

    async def stream(self, request: ChatRequest) -> AsyncIterator[StreamChunk]:
        messages = to_xml_wire(request.messages)
        if request.tools:
            messages = with_tools_prompt(messages, render_tools_for_prompt([_tool_def(t) for t in request.tools]))
        parser = XmlToolCallParser(self._new_id)
        finished = False
        inner = self._inner.stream(ChatRequest(model=request.model, messages=messages, tools=[]))
        async with aclosing(inner) as chunks:  # closed with this stream, in this task (see openai_provider)
            async for chunk in chunks:
                if isinstance(chunk, TextChunk):
                    for parsed in parser.feed(chunk.text):
                        yield parsed
                elif isinstance(chunk, FinishChunk):
                    for parsed in parser.finish():
                        yield parsed
                    finished = True
                    yield FinishChunk("tool_calls" if parser.calls else chunk.reason)
                else:
                    yield chunk
        if not finished:
            for parsed in parser.finish():
                yield parsed


def _inside_json_string(body: str) -> bool:
    """Whether ``body`` breaks off inside a JSON string: then a closing tag right after it is part of the string."""
    text = body.strip()
    fenced = _FENCE.match(text)
    try:
        json.loads(fenced.group(1) if fenced else text)
    except json.JSONDecodeError as exc:
        return exc.msg.startswith("Unterminated string")
    return False


def _json_object(text: str) -> dict[str, Any] | None:
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        return None
    return value if isinstance(value, dict) else None


def _tool_def(wire: dict[str, Any]) -> ToolDef:
    """A ``ToolDef`` from one entry of the OpenAI ``tools`` array."""
    function = wire.get("function", wire)
    return ToolDef(
        name=function["name"],
        description=function.get("description", ""),
        parameters=function.get("parameters") or {"type": "object", "properties": {}},
    )
