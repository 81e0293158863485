from tests.engine.storage.conftest import store, workspace  # noqa: F401  (the same workspace and store fixtures)
