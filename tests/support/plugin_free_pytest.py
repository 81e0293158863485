"""Auto-verify's real `pytest -q` in a test's project, without this environment's pytest plugins.

The plugins installed here (snapshots, asyncio, xdist, benchmark...) take seconds to load in every child `pytest`,
and auto-verify's runs compile them afresh (their bytecode goes to the run's own temp folder). A test that runs a
real verification sets ``VARIABLE`` and names it in the `bash.env` setting (``BASH``): the run's environment is
built from an allow-list, which that setting extends.
"""

from __future__ import annotations

VARIABLE = "PYTEST_DISABLE_PLUGIN_AUTOLOAD"
ENV = {VARIABLE: "1"}
BASH = {"env": [VARIABLE]}
