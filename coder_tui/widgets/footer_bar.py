"""The bottom line: Textual's footer of the bindings in force (the mode is on the prompt line, shown once).

Textual's ``Footer`` recomposes, a widget per key, every time the bindings may have changed: when an input starts
or ends (Esc is shown only while a task runs), and on every focus change. Mounting a dozen keys is tens of
milliseconds in which no key is drawn, right when an answer ends or Esc has stopped a task. This footer builds the
same widgets, but on a change it only removes and mounts the keys that differ, and does nothing when none does.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from itertools import groupby

from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Footer
from textual.widgets._footer import FooterKey, FooterLabel, KeyGroup

from coder_tui.transcript.held_mount import mount_held

# What one footer item shows: a key (key, display, description, action, enabled, tooltip), or a group of keys under
# one description. Equal items are drawn the same.
KeyItem = tuple[str, str, str, str, bool, str]
FooterItem = tuple[str, tuple[KeyItem, ...], str, bool]


class FooterBar(Footer):
    """Docked at the bottom; bindings come from the focused widget chain."""

    def __init__(self, *, id: str | None = None, deferred: bool = False) -> None:
        """``deferred``: the keys are first shown when ``show_keys`` is called, not as soon as the bindings are
        known (right after the first frame, when the first keys typed would wait for them)."""
        super().__init__(show_command_palette=False, id=id)
        self._items: list[FooterItem] = []
        self._widgets: list[list[Widget]] = []
        self._shown = not deferred

    def compose(self) -> ComposeResult:
        self._items, self._widgets = [], []
        if not self._bindings_ready or not self._shown:
            return
        for item in self._footer_items():
            widgets = self._build(item)
            self._items.append(item)
            self._widgets.append(widgets)
            yield from widgets

    def show_keys(self) -> None:
        """Shows the keys from now on (a deferred footer)."""
        self._shown = True
        if self._bindings_ready:
            self._update_keys()

    def bindings_changed(self, screen: Screen[object]) -> None:
        self._bindings_ready = True
        if not screen.app.app_focus or not self._shown:
            return
        if self.is_attached and screen is self.screen:
            self.call_after_refresh(self._update_keys)

    def _update_keys(self) -> None:
        """Replaces only the items that changed (the common start and end stay mounted)."""
        if not self.is_attached:
            return
        new = list(self._footer_items())
        old = self._items
        if new == old:
            return
        start = 0
        while start < min(len(old), len(new)) and old[start] == new[start]:
            start += 1
        end = 0
        while end < min(len(old), len(new)) - start and old[-1 - end] == new[-1 - end]:
            end += 1
        gone = [widget for widgets in self._widgets[start : len(old) - end] for widget in widgets]
        with self._context():  # the new keys bind to this footer's ``compact``, as in ``compose``
            built = [self._build(item) for item in new[start : len(new) - end]]
        following = self._widgets[len(old) - end][0] if end else None
        self._items = new
        self._widgets[start : len(old) - end] = built
        if gone:
            self.remove_children(gone)
        added = [widget for widgets in built for widget in widgets]
        if added:
            # Held: the keys (and a group's own keys, mounted a turn later) are laid out and drawn in one frame, not
            # one frame per turn of their mounting.
            mount_held(self, added, before=following)

    def _footer_items(self) -> Iterator[FooterItem]:
        """What ``Footer.compose`` shows, as comparable items."""
        shown = [(binding, enabled, tooltip) for (_, binding, enabled, tooltip) in
                 self.screen.active_bindings.values() if binding.show]
        by_action: defaultdict[str, list[tuple[Binding, bool, str]]] = defaultdict(list)
        for binding, enabled, tooltip in shown:
            by_action[binding.action].append((binding, enabled, tooltip))
        self.styles.grid_size_columns = len(by_action)
        for group, members in groupby(by_action.values(), lambda bindings: bindings[0][0].group):
            firsts = [bindings[0] for bindings in members]
            if group is not None and len(firsts) > 1:
                keys = tuple(self._key_item(binding, enabled, tooltip or binding.description, "")
                             for binding, enabled, tooltip in firsts)
                yield ("group", keys, group.description, group.compact)
            else:
                for binding, enabled, tooltip in firsts:
                    yield ("key", (self._key_item(binding, enabled, tooltip, binding.description),), "", False)

    def _key_item(self, binding: Binding, enabled: bool, tooltip: str, description: str) -> KeyItem:
        return (binding.key, self.app.get_key_display(binding), description, binding.action, enabled, tooltip)

    def _build(self, item: FooterItem) -> list[Widget]:
        kind, keys, description, compact = item
        if kind == "key":
            return [self._footer_key(keys[0])]
        group = KeyGroup(*(self._footer_key(key, classes="-grouped") for key in keys),
                         classes="-compact" if compact else "")
        return [group, FooterLabel(description)]

    def _footer_key(self, item: KeyItem, classes: str = "") -> FooterKey:
        key, display, description, action, enabled, tooltip = item
        return FooterKey(key, display, description, action, disabled=not enabled, tooltip=tooltip,
                         classes=classes).data_bind(compact=Footer.compact)
