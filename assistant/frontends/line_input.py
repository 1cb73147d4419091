"""The chat's input: lines read at the prompt (prompt_toolkit on a terminal, with history and completion; plain
lines otherwise), and the keys typed while an answer streams, kept for the next prompt instead of echoed into the
answer (a whole line typed then is the next question, asked at once)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
from pathlib import Path
from typing import Any, Awaitable, Callable, Iterator


def _typed(keys: bytes) -> str:
    """Keys as the text they typed: control keys and escape sequences (arrows, Backspace) left out."""
    from assistant.control import without_controls

    return without_controls(keys.decode(errors="ignore"))


class LineInput:
    """``completer``: makes the prompt's completer (called once, only on a terminal)."""

    def __init__(self, history_file: Path, completer: Callable[[], Any]) -> None:
        self.history_file = history_file
        self.completer = completer
        self._keys_while_answering = False  # keys typed during an answer are kept for the next prompt
        self._ahead = b""  # what was typed while the answer streamed
        self.read_line = self._line_reader()

    def _line_reader(self) -> Callable[[str], Awaitable[str]]:
        """prompt_toolkit on a terminal (history, completion, Alt+Enter for a new line), else plain lines."""
        if sys.stdin.isatty() and sys.stdout.isatty():
            try:
                from prompt_toolkit import PromptSession
                from prompt_toolkit.history import FileHistory
                from prompt_toolkit.key_binding import KeyBindings
            except ImportError:
                pass
            else:
                bindings = KeyBindings()

                @bindings.add("escape", "enter")
                def _(event) -> None:
                    event.current_buffer.insert_text("\n")

                self.history_file.parent.mkdir(parents=True, exist_ok=True)
                session: PromptSession[str] = PromptSession(history=FileHistory(str(self.history_file)),
                                                            key_bindings=bindings, completer=self.completer(),
                                                            complete_while_typing=False)
                self._keys_while_answering = True
                return lambda prompt: session.prompt_async(prompt, default=self._typed_ahead())

        async def plain(prompt: str) -> str:
            sys.stdout.write(prompt)
            sys.stdout.flush()
            line = await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
            if not line:
                raise EOFError
            return line.rstrip("\n")

        return plain

    def _typed_ahead(self) -> str:
        """What was typed while the last answer streamed (not a whole line), as the next prompt's text."""
        text, self._ahead = _typed(self._ahead), b""
        return text

    def typed_line(self) -> str | None:
        """A whole line typed (Enter pressed) while the last answer streamed: the next question, asked at once;
        Ctrl-D typed then leaves, as it would at the prompt."""
        if self._ahead.startswith(b"\x04"):
            self._ahead = self._ahead[1:]
            raise EOFError
        for end in (b"\r", b"\n"):
            if end in self._ahead:
                line, self._ahead = self._ahead.split(end, 1)
                return _typed(line).strip()
        return None

    @contextlib.contextmanager
    def keys_kept(self) -> Iterator[None]:
        """While an answer streams, keys are not echoed into it (nor lost: Ctrl-D in the terminal's line mode would be
        taken as end of input); they wait for the next prompt. Ctrl-C still cancels the answer."""
        if not (self._keys_while_answering and sys.stdin.isatty()):
            yield
            return
        import termios

        fd = sys.stdin.fileno()
        try:
            before = termios.tcgetattr(fd)
        except termios.error:
            yield
            return
        quiet = termios.tcgetattr(fd)
        quiet[3] &= ~(termios.ICANON | termios.ECHO)  # ISIG stays: Ctrl-C is still SIGINT
        quiet[6][termios.VMIN], quiet[6][termios.VTIME] = 1, 0
        loop = asyncio.get_running_loop()

        def read() -> None:
            try:
                self._ahead += os.read(fd, 1024)
            except OSError:
                pass

        termios.tcsetattr(fd, termios.TCSANOW, quiet)
        loop.add_reader(fd, read)
        try:
            yield
        finally:
            loop.remove_reader(fd)
            termios.tcsetattr(fd, termios.TCSANOW, before)

    async def read(self) -> str:
        """The next message: a line typed during the last answer, else what is typed at the prompt (a line
        ending in a backslash goes on to the next)."""
        typed = self.typed_line()
        if typed is not None:
            print(f"› {typed}")
            return typed
        lines = [await self.read_line("› ")]
        while lines[-1].endswith("\\"):
            lines[-1] = lines[-1][:-1]
            lines.append(await self.read_line("… "))
        return "\n".join(lines).strip()
