"""The orchestrator and its turn pipeline. Front ends start one with ``front_end.start_engine``; only this package
imports the ``Orchestrator`` class (``orchestrator.py``)."""
