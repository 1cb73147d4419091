"""The text selected in another window, as context for a question: the X11 primary selection (``xclip``, else
``xsel``), ``wl-paste --primary`` on Wayland, and the clipboard where neither exists (``wl-paste``, ``pbpaste`` on
macOS, PowerShell's ``Get-Clipboard`` on Windows). Read by a helper program with a deadline, capped, decoded,
and cleaned of terminal controls: it is shown to the user and sent to a model, never obeyed."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

from assistant.control import without_controls
from assistant.limits import MAX_TEXT

NAME = "selection"  # how the attached text is named before the question ("selection:\n…"), as an -f file's name


def _commands() -> list[list[str]]:
    """The helpers to try, in order, for this desktop."""
    found: list[list[str]] = []
    if os.environ.get("WAYLAND_DISPLAY") and shutil.which("wl-paste"):
        found += [["wl-paste", "--primary", "--no-newline"], ["wl-paste", "--no-newline"]]
    if os.environ.get("DISPLAY"):
        if shutil.which("xclip"):
            found += [["xclip", "-o", "-selection", "primary"]]
        elif shutil.which("xsel"):
            found += [["xsel", "--primary", "--output"]]
        if shutil.which("xclip"):
            found += [["xclip", "-o", "-selection", "clipboard"]]
    if sys.platform == "darwin" and shutil.which("pbpaste"):
        found += [["pbpaste"]]
    if sys.platform == "win32":
        found += [["powershell", "-NoProfile", "-Command", "Get-Clipboard"]]
    return found


def read_selection(timeout: float = 2.0) -> str | None:
    """The selected text (else the clipboard's), stripped and cleaned; ``None`` when nothing is selected or no
    helper can read it."""
    for command in _commands():
        try:
            done = subprocess.run(command, capture_output=True, timeout=timeout, stdin=subprocess.DEVNULL)
        except (OSError, subprocess.TimeoutExpired):
            continue
        data = done.stdout[:MAX_TEXT]
        if done.returncode == 0 and data.strip():
            text = data.decode("utf-8", errors="replace")
            return without_controls(text.replace("\r\n", "\n")).strip() or None
    return None


def how() -> str:
    """Which helper would be used here, for the line that says none could read a selection."""
    if sys.platform == "darwin":
        return "pbpaste"
    if sys.platform == "win32":
        return "PowerShell's Get-Clipboard"
    return "xclip or xsel (X11), wl-paste (Wayland)"


def attached(selection: str, question: str) -> str:
    """The question with the selection before it, as an -f file is (the rules read the question, not this)."""
    return f"{NAME}:\n{selection}\n\n{question}"
