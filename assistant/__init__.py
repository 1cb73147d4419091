"""assistant: a local-first desktop assistant on local models (Ollama, an OpenAI-compatible server, or in-process)."""

__version__ = "0.1.0"
