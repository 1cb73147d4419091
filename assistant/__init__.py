"""assistant: a local-first desktop assistant on local models served by Ollama."""

__version__ = "0.1.0"
