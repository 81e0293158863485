"""What the model is told: the system prompt and its environment section."""
