"""advisor: prompt-template linter and KV-cache advisor for LLM serving."""

__version__ = "0.1.0"
