"""Textual's ``TextArea``, imported without its optional tree-sitter support.

Textual's TextArea imports ``tree_sitter`` at import time to offer syntax highlighting, which the prompt never
uses. The prompt must accept keys before any heavy engine dependency loads (tree-sitter is the engine's, for
bash analysis), so that one import runs with ``tree_sitter`` marked missing; Textual then keeps its plain-text path
and the engine can still import tree-sitter normally later.
"""

from __future__ import annotations

import sys

_hide = "tree_sitter" not in sys.modules
if _hide:
    sys.modules["tree_sitter"] = None  # type: ignore[assignment]  # makes `import tree_sitter` raise ImportError
try:
    from textual.widgets import TextArea
    from textual.widgets.text_area import Selection
finally:
    if _hide:
        del sys.modules["tree_sitter"]

__all__ = ["Selection", "TextArea"]
