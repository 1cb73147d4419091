"""The user's own tools, used as they set them up: the clipboard and the text editor.

Copy text to the system clipboard: the platform's own tool where there is one (wl-copy on Wayland, xclip or xsel
on X11, pbcopy on macOS, clip on Windows), else OSC 52, the escape sequence that asks the terminal itself to set
its clipboard (it works over SSH in most terminals: kitty, WezTerm, iTerm2, Windows Terminal, foot, Alacritty).
No library: each tool is one command reading standard input, and which one applies follows from the environment.

The editor: $VISUAL, then $EDITOR, then nano or vi (notepad on Windows), as git and crontab choose one."""

from __future__ import annotations

import base64
import os
import shutil
import subprocess
import sys
from typing import IO

OSC52 = "the terminal (OSC 52)"
TMUX_BUFFER = "tmux"  # what copy() returns when tmux's paste buffer took it
MAX_OSC52 = 100_000  # bytes of base64: more than many terminals take in one sequence


def _tools() -> list[list[str]]:
    """The commands that would set the clipboard here, best first."""
    found: list[list[str]] = []
    if sys.platform == "darwin":
        found.append(["pbcopy"])
    elif os.name == "nt":
        found.append(["clip"])
    if os.environ.get("WAYLAND_DISPLAY"):
        found.append(["wl-copy"])
    if os.environ.get("DISPLAY"):
        found += [["xclip", "-selection", "clipboard", "-in"], ["xsel", "--clipboard", "--input"]]
    if os.environ.get("TMUX"):  # tmux's own buffer, and the clipboard where tmux passes it on (-w: tmux 3.2 and later)
        found += [["tmux", "load-buffer", "-w", "-"], ["tmux", "load-buffer", "-"]]
    return [cmd for cmd in found if shutil.which(cmd[0])]


def copy(text: str, terminal: IO[str] | None = None) -> str:
    """Put ``text`` on the clipboard; return how (the tool's name, :data:`TMUX_BUFFER` inside tmux with no clipboard
    tool, or :data:`OSC52`). Raises ``OSError`` with the reason when nothing here can (no tool, and no terminal to
    ask). Inside tmux, its own paste buffer is certain where an escape sequence to the outer terminal is not (tmux
    drops it unless allow-passthrough is on); tmux passes the buffer on to that clipboard when set-clipboard is."""
    for cmd in _tools():
        try:
            # The X11 tools stay behind to serve the selection: their output is not waited for (no pipes held).
            subprocess.run(cmd, input=text.encode(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                           timeout=5, check=True)
            return cmd[0]
        except (OSError, subprocess.SubprocessError):
            continue
    out = terminal or sys.stdout
    if not out.isatty():
        raise OSError("no clipboard tool here (wl-copy, xclip, xsel, pbcopy) and no terminal to ask")
    data = base64.b64encode(text.encode()).decode()
    if len(data) > MAX_OSC52:
        raise OSError(f"{len(text):,} characters is more than a terminal takes at once; install xclip or wl-copy")
    sequence = f"\x1b]52;c;{data}\x07"
    out.write(sequence)
    out.flush()
    return OSC52


def editor() -> str | None:
    """The command that opens the user's editor (it may carry flags: ``code --wait``), or None."""
    return os.environ.get("VISUAL") or os.environ.get("EDITOR") or next(
        (e for e in ("nano", "vi", "notepad") if shutil.which(e)), None)
