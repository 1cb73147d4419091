"""The capable model a user is pointed to when the one answering is too small, in one place for every front end
(no imports: the popup and the chat read it without loading the pipeline)."""

CAPABLE_MODEL = "qwen2.5:3b"  # a capable model that runs on an ordinary laptop, and the default `model`
CAPABLE_SIZE = "1.9 GB"  # its download (Q4_K_M)
PULL_CAPABLE = f"assistant models pull {CAPABLE_MODEL}"  # with Ollama or without it (then for the embedded engine)
TOO_SMALL = "the model is too small to answer it reliably"  # a turn's ``replaced`` when it declined so
# ... when the small model is served by the user's own OpenAI-compatible server: no pull is offered (the capable
# model is one to serve there)
TOO_SMALL_SERVED = "the model is too small to answer it reliably; a capable one is served by your own server"
