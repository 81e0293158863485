"""The event and audit logs: task lifecycles and interactions (``events``), tool calls and permission decisions
(``audit``), and their records (``records``)."""
