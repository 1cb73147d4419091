"""The ways people use the assistant: the command line (``cli``), the chat REPL, batch questions, the daemon
with its local API, the thin client and the popup. Nothing is imported here: the thin client stays light."""
