"""The session's model as an ACP session config option (SPEC 24): a select whose choices are the session's model,
the configured one and the configured provider profiles' models (``profile:model``, as ``/model`` takes them).
Choosing one switches the model as ``/model <choice>`` does; any name the server takes may be set (a client that
lets the user type one), and it joins the choices."""

from __future__ import annotations

from typing import TYPE_CHECKING

from acp.schema import SessionConfigOptionSelect, SessionConfigSelectOption

if TYPE_CHECKING:
    from engine.commands.context import CommandContext

MODEL_OPTION = "model"


def model_choices(orch: CommandContext, chosen: list[str]) -> list[str]:
    choices = [orch.model, orch.config.model, *chosen]
    choices += [f"{name}:{profile.model}" for name, profile in orch.config.providers.items() if profile.model]
    return list(dict.fromkeys(choice for choice in choices if choice))


def config_options(orch: CommandContext, chosen: list[str]) -> list[SessionConfigOptionSelect]:
    return [
        SessionConfigOptionSelect(
            id=MODEL_OPTION,
            name="Model",
            description="the model this session talks to (/model)",
            category="model",
            type="select",
            current_value=orch.model,
            options=[SessionConfigSelectOption(value=name, name=name) for name in model_choices(orch, chosen)],
        )
    ]

