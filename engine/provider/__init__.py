"""Model providers. The engine talks to models only through the ``ChatProvider`` port."""
