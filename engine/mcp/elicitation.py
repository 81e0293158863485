"""Elicitation forms (SPEC 22): an MCP server's requested schema (a flat JSON Schema object whose properties are
strings, numbers, integers, booleans, single-choice enums and multi-choice arrays of enums) as the fields of a form,
and the values typed into it checked and converted back into the content the server asked for.

The full screen's dialog (``coder_tui.screens.elicitation``) draws these fields; ACP and headless use the same
checks, so a form answered anywhere gives the server the same content."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Literal

from engine.record import record

FieldKind = Literal["string", "number", "integer", "boolean", "choice", "multi"]
_FORMATS = {
    "email": re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$"),
    "uri": re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:\S+$"),
    "date": re.compile(r"^\d{4}-\d{2}-\d{2}$"),
    "date-time": re.compile(r"^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$"),
}


class SchemaError(ValueError):
    """A requested schema this client cannot make a form of; the message names the property."""


@record
class FormField:
    name: str
    title: str
    description: str
    kind: FieldKind
    required: bool
    default: Any = None
    # (value, label) of each choice, for "choice" and "multi".
    choices: tuple[tuple[str, str], ...] = ()
    minimum: float | None = None
    maximum: float | None = None
    min_length: int | None = None
    max_length: int | None = None
    format: str | None = None

    @property
    def label(self) -> str:
        return f"{self.title}{' *' if self.required else ''}"


def form_fields(schema: Mapping[str, Any]) -> list[FormField]:
    """The form's fields in the schema's order; ``SchemaError`` for a schema that is not a flat object."""
    if schema.get("type", "object") != "object":
        raise SchemaError(f"the requested schema is a {schema.get('type')!r}, not an object")
    properties = schema.get("properties") or {}
    if not isinstance(properties, Mapping):
        raise SchemaError("the requested schema's properties are not an object")
    required = set(schema.get("required") or [])
    return [_field(str(name), prop, str(name) in required) for name, prop in properties.items()]


def form_content(fields: list[FormField], raw: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, str]]:
    """The values typed (text, a bool for a switch, a list of values for a multi-choice) converted for the server,
    and what is wrong, by field name. A blank optional field is left out."""
    content: dict[str, Any] = {}
    errors: dict[str, str] = {}
    for field in fields:
        value = raw.get(field.name)
        if _blank(value):
            if field.required:
                errors[field.name] = "required"
            continue
        try:
            content[field.name] = field_value(field, value)
        except ValueError as exc:
            errors[field.name] = str(exc)
    return content, errors


def field_value(field: FormField, value: Any) -> Any:
    """One value checked against its field (``ValueError`` says what is wrong)."""
    if field.kind == "boolean":
        if isinstance(value, bool):
            return value
        text = str(value).strip().lower()
        if text in ("true", "yes", "y", "1", "on"):
            return True
        if text in ("false", "no", "n", "0", "off"):
            return False
        raise ValueError("yes or no")
    if field.kind in ("number", "integer"):
        return _number(field, value)
    if field.kind == "choice":
        return _choice(field, str(value))
    if field.kind == "multi":
        values = value if isinstance(value, list) else [v.strip() for v in str(value).split(",") if v.strip()]
        chosen = [_choice(field, str(v)) for v in values]
        if field.min_length is not None and len(chosen) < field.min_length:
            raise ValueError(f"choose at least {field.min_length}")
        if field.max_length is not None and len(chosen) > field.max_length:
            raise ValueError(f"choose at most {field.max_length}")
        return chosen
    text = str(value)
    if field.min_length is not None and len(text) < field.min_length:
        raise ValueError(f"at least {field.min_length} characters")
    if field.max_length is not None and len(text) > field.max_length:
        raise ValueError(f"at most {field.max_length} characters")
    pattern = _FORMATS.get(field.format or "")
    if pattern is not None and not pattern.match(text):
        raise ValueError(f"not a valid {field.format}")
    return text


def _field(name: str, prop: Any, required: bool) -> FormField:
    if not isinstance(prop, Mapping):
        raise SchemaError(f"property {name!r} is not a schema")
    title = str(prop.get("title") or name)
    description = str(prop.get("description") or "")
    kind = prop.get("type")
    common: dict[str, Any] = {"name": name, "title": title, "description": description, "required": required,
                              "default": prop.get("default")}
    choices = _choices(prop)
    if choices:
        return FormField(kind="choice", choices=choices, **common)
    if kind == "array":
        items = prop.get("items") if isinstance(prop.get("items"), Mapping) else {}
        item_choices = _choices(items)
        if not item_choices:
            raise SchemaError(f"property {name!r}: an array must list its choices (items.enum or items.anyOf)")
        return FormField(kind="multi", choices=item_choices, min_length=prop.get("minItems"),
                         max_length=prop.get("maxItems"), **common)
    if kind in ("number", "integer"):
        return FormField(kind=kind, minimum=prop.get("minimum"), maximum=prop.get("maximum"), **common)
    if kind == "boolean":
        return FormField(kind="boolean", **common)
    if kind == "string":
        return FormField(kind="string", min_length=prop.get("minLength"), max_length=prop.get("maxLength"),
                         format=prop.get("format"), **common)
    raise SchemaError(f"property {name!r}: type {kind!r} is not one a form can ask for")


def _choices(prop: Mapping[str, Any]) -> tuple[tuple[str, str], ...]:
    if isinstance(prop.get("enum"), list):
        values = [str(v) for v in prop["enum"]]
        names = prop.get("enumNames") if isinstance(prop.get("enumNames"), list) else values
        return tuple(zip(values, [str(n) for n in names], strict=False))
    options = prop.get("oneOf") or prop.get("anyOf")
    if isinstance(options, list) and all(isinstance(o, Mapping) and "const" in o for o in options):
        return tuple((str(o["const"]), str(o.get("title") or o["const"])) for o in options)
    return ()


def _choice(field: FormField, value: str) -> str:
    for choice, label in field.choices:
        if value in (choice, label):
            return choice
    raise ValueError(f"one of {', '.join(c for c, _ in field.choices)}")


def _number(field: FormField, value: Any) -> float | int:
    try:
        number: float | int = int(str(value)) if field.kind == "integer" else float(str(value))
    except ValueError:
        raise ValueError("a whole number" if field.kind == "integer" else "a number") from None
    if field.minimum is not None and number < field.minimum:
        raise ValueError(f"at least {field.minimum:g}")
    if field.maximum is not None and number > field.maximum:
        raise ValueError(f"at most {field.maximum:g}")
    return number


def _blank(value: Any) -> bool:
    return value is None or (isinstance(value, str) and not value.strip()) or value == []
