"""The configuration in force for one run of the engine, and what follows from it (SPEC 17, 18): the loaded
configuration with the provider profile in use applied, the context window the server reports applied to that,
how approvals are answered, and the model provider made from it (``ProviderSlot``). ``/model`` switches the model
(and the profile) here; ``/trust on|off`` replaces the configuration here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from engine.config import Config
from engine.orchestrator.deps import ApprovalSettings
from engine.orchestrator.provider_slot import ProviderSlot
from engine.provider.profiles import effective_config, split_model_spec

if TYPE_CHECKING:
    from engine.provider.base import ChatProvider
    from engine.provider.server_window import ServerWindow


class RunConfig:
    def __init__(
        self,
        config: Config,
        *,
        env: dict[str, str],
        provider: ChatProvider | None,
        interactive: bool,
        on_answer: Callable[[], None],
    ) -> None:
        """``provider``: the one to use (tests give one); None makes it from the configuration at first use.
        ``on_answer``: applies what the server answered (its window, its models; ``server_answer``)."""
        self._base = config
        self._interactive = interactive
        self.profile, model = split_model_spec(config.model, config.providers)
        self.config = effective_config(config, self.profile, model)
        self.approvals = ApprovalSettings.from_config(self.config, interactive=interactive)
        self.slot = ProviderSlot(provider, env, on_answer)

    @property
    def base(self) -> Config:
        """The configuration as loaded, before the model's profile and the server's window applied."""
        return self._base

    @property
    def server_window(self) -> ServerWindow:
        """The context window a local server reports, asked in the background (SPEC 18)."""
        return self.slot.server_window

    @property
    def context_window_source(self) -> str:
        """Where the context window in use comes from (``/status``)."""
        return self.server_window.source(self._base, self.profile, self.config)

    @property
    def missing_model_setup(self) -> str | None:
        """How to configure a model, while none is (no key, no server URL)."""
        return self.slot.missing_setup(self.config)

    def provider(self) -> ChatProvider:
        """The model provider, made at first use. Raises ``ProviderError`` when no model is configured."""
        return self.slot.get(self.config)

    def switch_model(self, model: str) -> str:
        """Switches to ``model``, or to ``profile:model`` with that provider profile (``ConfigError`` if unknown);
        returns the model's name. Another server means another provider at the next turn."""
        profile, name = split_model_spec(model, self._base.providers)
        profile = profile or self.profile
        config = effective_config(self._base, profile, name)
        if config.provider != self.config.provider:
            self.slot.server_changed()
        self.profile, self.config = profile, config
        self.ask_server()
        return config.model

    def replace(self, config: Config) -> None:
        """A reloaded configuration: approvals follow it, and its server is asked for its window. The provider made
        from the old one is closed by ``slot.config_replaced``."""
        self._base = self.config = config
        self.ask_server()
        self.approvals = ApprovalSettings.from_config(config, interactive=self._interactive)

    def ask_server(self) -> None:
        """Asks the configured server for its window and models, in the background."""
        self.slot.ask_server(self.config)
