"""Tool calls a model wrote as text instead of sending them natively (SPEC 18: local models that just work).

Local servers often pass a model's tool calls through as answer text when their chat template does not parse
them. The common formats are read here, with no configuration:

- Hermes / Qwen: ``<tool_call>{"name": ..., "arguments": {...}}</tool_call>``, one block per call;
- Qwen3-Coder: ``<function=NAME><parameter=P>value</parameter></function>`` (inside ``<tool_call>`` or not);
- Mistral: ``[TOOL_CALLS][{"name": ..., "arguments": {...}}]`` or ``[TOOL_CALLS]NAME[ARGS]{...}``;
- Llama 3: ``<|python_tag|>{"name": ..., "parameters": {...}}`` (several separated by ``;``);
- bare or fenced JSON: an answer that is nothing but ``{"name": ..., "arguments": {...}}`` (or a list of them).

A call is taken only when it names a tool the request offered and its arguments are an object whose keys the
tool's schema knows; anything else stays text, so prose that mentions JSON or a tool's name never becomes a call.
JSON written among other prose is an example, not a call: bare JSON counts only when it is the whole answer.
"""

from __future__ import annotations

import json
import re
from dataclasses import field
from typing import Any

from engine.record import record

# Where a marked call starts; the JSON form has no marker and is looked for in the whole answer only.
MARKERS = ("<tool_call>", "<function=", "[TOOL_CALLS]", "<|python_tag|>")
_HERMES = re.compile(r"<tool_call>\s*(.*?)\s*(?:</tool_call>|$)", re.DOTALL)
_QWEN_FUNCTION = re.compile(r"<function=([^>\s]+)>(.*?)(?:</function>|$)", re.DOTALL)
_QWEN_PARAMETER = re.compile(r"<parameter=([^>\s]+)>\n?(.*?)\n?(?:</parameter>|(?=<parameter=)|$)", re.DOTALL)
_MISTRAL_NAMED = re.compile(r"\[TOOL_CALLS\]\s*([A-Za-z_][\w.-]*)\s*\[ARGS\]\s*", re.DOTALL)
_FENCE = re.compile(r"^```[\w-]*[ \t]*\n?(.*?)\n?```$", re.DOTALL)
_END_TOKENS = ("<|eom_id|>", "<|eot_id|>", "</s>", "<|im_end|>")


@record
class TextCall:
    name: str
    arguments: str  # a JSON object, as text


@record
class OfferedTools:
    """The tools a request offered: the argument names each schema lists (None: any) and those it requires."""

    parameters: dict[str, frozenset[str] | None]
    required: dict[str, frozenset[str]] = field(default_factory=dict)

    @classmethod
    def from_wire(cls, tools: list[dict[str, Any]]) -> OfferedTools:
        offered: dict[str, frozenset[str] | None] = {}
        required: dict[str, frozenset[str]] = {}
        for tool in tools:
            function = tool.get("function", tool)
            name = function.get("name")
            if not isinstance(name, str):
                continue
            schema = function.get("parameters") or {}
            properties = schema.get("properties")
            closed = isinstance(properties, dict) and schema.get("additionalProperties") is not True
            offered[name] = frozenset(properties) if closed else None
            required[name] = frozenset(r for r in schema.get("required") or () if isinstance(r, str))
        return cls(offered, required)

    def accepts(self, name: Any, arguments: Any) -> bool:
        if not isinstance(name, str) or name not in self.parameters or not isinstance(arguments, dict):
            return False
        known = self.parameters[name]
        return (known is None or set(arguments) <= known) and self.required.get(name, frozenset()) <= set(arguments)


def first_marker(text: str) -> int:
    """Where the first call marker starts in ``text``, or -1."""
    found = [at for marker in MARKERS if (at := text.find(marker)) >= 0]
    return min(found) if found else -1


def parse_marked(text: str, tools: OfferedTools) -> list[TextCall] | None:
    """The calls written from the first marker of ``text`` on; None unless every block found is a valid call."""
    for end in _END_TOKENS:
        text = text.replace(end, "")
    text = text.strip()
    if text.startswith("<|python_tag|>"):
        return _json_calls(text.removeprefix("<|python_tag|>"), tools, split_semicolons=True)
    if text.startswith("[TOOL_CALLS]"):
        return _mistral(text, tools)
    calls: list[TextCall] = []
    blocks = [match.group(1) for match in _HERMES.finditer(text)] if text.startswith("<tool_call>") else [text]
    rest = _HERMES.sub("", text).strip() if text.startswith("<tool_call>") else ""
    if rest:
        return None  # text after the calls: not a clean call block
    for block in blocks:
        found = _qwen_coder(block, tools) if block.startswith("<function=") else _json_calls(block, tools)
        if not found:
            return None
        calls += found
    return calls or None


def parse_whole_json(text: str, tools: OfferedTools) -> list[TextCall] | None:
    """The calls of an answer that is nothing but JSON (bare or in one fence) naming offered tools."""
    body = text.strip()
    fenced = _FENCE.match(body)
    if fenced:
        body = fenced.group(1).strip()
    if not body.startswith(("{", "[")):
        return None
    return _json_calls(body, tools)


def _json_calls(text: str, tools: OfferedTools, *, split_semicolons: bool = False) -> list[TextCall] | None:
    values = _json_values(text.strip(), split_semicolons)
    if values is None:
        return None
    calls = []
    for value in values:
        call = _call_of(value, tools)
        if call is None:
            return None
        calls.append(call)
    return calls or None


def _json_values(text: str, split_semicolons: bool) -> list[Any] | None:
    """The JSON values ``text`` holds one after another (a list counts as its items); None if anything else."""
    decoder = json.JSONDecoder()
    values: list[Any] = []
    position = 0
    while position < len(text):
        try:
            value, position = decoder.raw_decode(text, position)
        except ValueError:
            return None
        values += value if isinstance(value, list) else [value]
        while position < len(text) and (text[position].isspace() or (split_semicolons and text[position] == ";")):
            position += 1
    return values


def _call_of(value: Any, tools: OfferedTools) -> TextCall | None:
    if not isinstance(value, dict):
        return None
    if isinstance(value.get("function"), dict):  # {"type": "function", "function": {...}}
        value = value["function"]
    name = value.get("name")
    arguments = value.get("arguments", value.get("parameters"))
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments)
        except ValueError:
            return None
    if set(value) - {"name", "arguments", "parameters", "id", "type"} or not tools.accepts(name, arguments):
        return None
    return TextCall(name, json.dumps(arguments, ensure_ascii=False))


def _mistral(text: str, tools: OfferedTools) -> list[TextCall] | None:
    named = list(_MISTRAL_NAMED.finditer(text))
    if not named:
        return _json_calls(text.removeprefix("[TOOL_CALLS]"), tools)
    calls = []
    for number, match in enumerate(named):
        end = named[number + 1].start() if number + 1 < len(named) else len(text)
        found = _json_calls(
            json.dumps({"name": match.group(1), "arguments": _object_or_none(text[match.end():end])}), tools
        )
        if not found:
            return None
        calls += found
    return calls


def _object_or_none(text: str) -> Any:
    try:
        return json.loads(text.strip())
    except ValueError:
        return None


def _qwen_coder(text: str, tools: OfferedTools) -> list[TextCall] | None:
    functions = list(_QWEN_FUNCTION.finditer(text))
    if not functions or _QWEN_FUNCTION.sub("", text).strip():
        return None
    calls = []
    for function in functions:
        name = function.group(1)
        if _QWEN_PARAMETER.sub("", function.group(2)).strip():
            return None  # text between the parameters: not a call
        arguments = {
            match.group(1): _parameter_value(match.group(2)) for match in _QWEN_PARAMETER.finditer(function.group(2))
        }
        if not tools.accepts(name, arguments):
            return None
        calls.append(TextCall(name, json.dumps(arguments, ensure_ascii=False)))
    return calls


def _parameter_value(text: str) -> Any:
    """A Qwen3-Coder parameter: JSON when it reads as a number, boolean, list or object; else the text itself."""
    stripped = text.strip()
    if stripped[:1] in "[{" or stripped in ("true", "false", "null") or re.fullmatch(r"-?\d+(\.\d+)?", stripped):
        try:
            return json.loads(stripped)
        except ValueError:
            pass
    return text
