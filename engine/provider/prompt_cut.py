"""A prompt the server cut (SPEC 18): a local server started with a small context (Ollama's default ``num_ctx``)
drops the start of a longer prompt without an error, and reports the prompt tokens it kept. When those are far
below what was sent, the user is told which server setting to raise.
"""

from __future__ import annotations

from engine.provider.server_probe import SERVER_NAMES, SERVER_SETTINGS

# Reported prompt tokens below this share of the count of what was sent mean the server cut the prompt: counts of
# different tokenizers differ by a fifth or so, never by half.
CUT_RATIO = 0.5
# Requests smaller than this are not judged: a small count's share says little.
MIN_SENT_TOKENS = 2048


def prompt_cut_warning(reported: int, sent: int, server_kind: str | None) -> str | None:
    """The warning for a request of about ``sent`` tokens the server says held ``reported``; None when not cut."""
    if reported <= 0 or sent < MIN_SENT_TOKENS or reported >= sent * CUT_RATIO:
        return None
    if server_kind in SERVER_SETTINGS:
        name, setting = SERVER_NAMES[server_kind], SERVER_SETTINGS[server_kind]
        where = f"{name} seems to run the model with a smaller context: raise {setting}"
    else:
        where = "raise the server's context length: " + "; ".join(SERVER_SETTINGS.values())
    return (
        f"the server cut the prompt: it read {reported:,} tokens of about {sent:,} sent, so the start of the "
        f"conversation was dropped; {where}"
    )
