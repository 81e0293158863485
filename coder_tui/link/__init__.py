"""The engine link: the engine process, its protocol client, and what it sends made drawable."""
