"""What the configured server's answer changes (SPEC 18, "just the URL"): its context window applies, and with no
model configured its only model is used, or the user is asked to choose among the ones it lists (the full screen's
``/model`` picker; a turn until then says how to choose). A turn, ``/status``, ``/doctor`` and a headless run wait for
the answer (``server_ready``), bounded by the probe's timeout."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from engine.command_results import ModelsOffered
from engine.events import Notice
from engine.provider.server_models import choose_model_text, server_models
from engine.provider.server_probe import cached

if TYPE_CHECKING:
    from engine.orchestrator.engine_parts import EngineParts


def apply_server_answer(orch: EngineParts) -> None:
    """Called once the server has answered."""
    window = orch.config.context_window
    orch.config = orch.server_window.applied(orch.base_config, orch.provider_profile, orch.config)
    found = server_models(cached(orch.config.provider.base_url, orch.config.model), orch.model,
                          chosen=orch.model_chosen)
    if found.only is not None:
        orch.set_model(found.only)
        orch.emit(Notice(f"model: {found.only}, the one the server serves (no model is configured)"))
    elif found.choices and orch.interactive:
        text = choose_model_text(found.choices, interactive=True)
        orch.emit(ModelsOffered("/model", text, orch.model, found.choices))
    elif orch.interactive and orch.config.context_window != window:
        asyncio.get_running_loop().create_task(orch.announce_context())  # the status line shows the new window


async def server_ready(orch: EngineParts) -> str | None:
    """Waits for the server's answer (asking it now if nothing did); returns why a turn cannot start: several
    models listed and none chosen."""
    if orch.server_window.idle:
        orch.ask_server()
    await orch.server_window.wait()
    info = cached(orch.config.provider.base_url, orch.config.model)
    choices = server_models(info, orch.model, chosen=orch.model_chosen).choices
    return choose_model_text(choices, interactive=orch.interactive) if choices else None
