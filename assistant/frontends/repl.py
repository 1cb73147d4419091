"""``assistant chat``: the interactive REPL. Line editing and persistent history through prompt_toolkit
on a terminal (plain line reading otherwise), answers streamed under a one-line stage status, Ctrl-C
cancels the turn in flight and keeps the session, Ctrl-D or /exit leaves."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from pathlib import Path
from typing import Any

from assistant.frontends import trace_view
from assistant.config import ROLES, Settings
from assistant.errors import AssistantError
from assistant.answering import Answering
from assistant.frontends.columns import fit, terminal_columns, width, wrapped
from assistant.frontends.line_input import LineInput
from assistant.frontends.progress import Progress
from assistant.pipeline.question import Question
from assistant.store import SessionSummary
from assistant.capable import TOO_SMALL

HELP = """commands:
  /help                 this list
  /new                  start a new session
  /sessions             list sessions
  /resume ID            continue a session (an id prefix, or 'last': the conversation left; Tab shows their titles),
                        its last exchange shown
  /search TEXT          earlier questions and answers that contain TEXT (any session)
  /copy [code]          copy the last answer (without the check's note), or only its code blocks, to the clipboard
  /edit                 write the next question in $EDITOR; it is asked when you save and quit
  /trace [last-N|ID]    the last turn as a tree (last-N or N: N turns before it, as `assistant trace`)
  /model [ROLE] [NAME]  show the models, or set one for every role or for ROLE (router, executor, validator, responder)
  /retries N            executor retries after a failed check
  /pull                 get the capable model for this machine's engine (after the built-in model declined)
  /schema [SCHEMA|off]  answer with one JSON object that follows SCHEMA (JSON, a .json file, or 'name, age int');
                        /schema multi SCHEMA: a list of them, {"items": [...]}
  /template [NAME]      use a saved template's instructions, model and options from here on (alone: list them)
  /exit                 leave (or Ctrl-D)
Ctrl-C cancels an answer in progress. End a line with \\ (or press Esc then Enter) to continue on the next line."""


COMMANDS = [line.split()[0] for line in HELP.splitlines() if line.strip().startswith("/")]
_DESCRIBED = 24  # the column /help's descriptions start at


def help_text(columns: int) -> str:
    """/help broken at spaces to the terminal's width, each command's description under itself (never a word cut
    at the edge)."""
    entries: list[list[str]] = []
    for line in HELP.splitlines():
        if line.startswith(" " * _DESCRIBED) and entries:  # a description's next line
            entries[-1][1] += " " + line.strip()
        elif line.startswith("  /"):
            entries.append([line[:_DESCRIBED], line[_DESCRIBED:].strip()])
        else:
            entries.append([line, ""])
    hang = _DESCRIBED if columns - _DESCRIBED >= 30 else 4
    out = []
    for head, described in entries:
        if not described:
            out.append(wrapped(head, columns))
            continue
        rows = wrapped(described, max(columns - hang, 20)).split("\n")
        if hang == _DESCRIBED:
            out.append(head + rows[0])
        else:  # a narrow terminal: the description under its command
            out += [head.rstrip(), " " * hang + rows[0]]
        out += [" " * hang + row for row in rows[1:]]
    return "\n".join(out)
ROLE_NAMES = ["router", "executor", "validator", "responder"]


class Repl:
    def __init__(self, app: Answering, session_id: str, history_file: Path, progress_enabled: bool,
                 via: str | None = None, render: bool = True) -> None:
        self.app = app
        self.render = render
        self.via = via
        self.session_id = session_id
        self.history_file = history_file
        self.progress_enabled = progress_enabled
        self._models: list[str] | None = None
        self._offered = False  # the capable model's pull, offered once a session
        self._declined: str | None = None  # the question the built-in model declined, asked again after /pull
        self.input = LineInput(history_file, self._completer)

    # input: the prompt's completions (the reading itself is line_input.LineInput)

    def _completer(self) -> Any:
        """Tab completes the /commands, and after /model a role or a model name, after /resume a session."""
        from prompt_toolkit.completion import Completer, Completion

        repl = self

        class Commands(Completer):
            def get_completions(self, document, complete_event):
                text = document.text_before_cursor
                if not text.startswith("/"):
                    return
                words = text.split()
                typing = "" if text.endswith(" ") else words[-1]
                if len(words) <= 1 and not text.endswith(" "):
                    options = COMMANDS
                elif words[0] == "/model":
                    options = [*ROLE_NAMES, *repl.model_names()]
                elif words[0] == "/resume":  # each with its title beside it, so the id is not picked blind
                    titled = [("last", "the most recent"), *((s.id, fit(one_line(s.title) or "(untitled)", 50))
                                                             for s in repl.app.store.sessions(20))]
                    for option, title in titled:
                        if option.startswith(typing):
                            yield Completion(option, start_position=-len(typing), display_meta=title)
                    return
                elif words[0] == "/copy":
                    options = ["code"]
                elif words[0] == "/template":
                    from assistant.frontends.templates import names
                    from assistant.paths import resolve_paths

                    options = names(resolve_paths().config_dir)
                elif words[0] == "/trace":
                    options = ["last", "last-1", "last-2"]
                else:
                    return
                for option in options:
                    if option.startswith(typing):
                        yield Completion(option, start_position=-len(typing))

        return Commands()

    def model_names(self) -> list[str]:
        """The models the backend has (asked once; a backend that does not answer gives the configured ones)."""
        if self._models is None:
            from assistant.frontends.completion import model_names

            self._models = model_names(self.app.settings)
        return self._models

    async def _answering(self) -> str:
        """The model that answers, here or in the daemon."""
        return await self.app.answering_model()

    # the loop

    async def run(self, first: str | None = None, quoted: bool = False) -> int:
        """``first``: a message to send before reading any (``assistant chat -f notes.txt "sum them up"``;
        ``quoted``: it carries a file, which no rule reads as a request)."""
        turns = len(self.app.store.session_turns(self.session_id))
        resumed = f" (resumed, {turns} turn{'s' if turns != 1 else ''})" if turns else ""
        via = f" · via {self.via}" if self.via else ""
        model, session = f"assistant chat · {await self._answering()}{via}", f"session {self.session_id}{resumed} · /help"
        header = f"{model} · {session}"
        if sys.stdout.isatty() and width(header) >= terminal_columns():  # two rows, never a fold
            header = f"{model}\n{session}"
        print(header)
        pending = self.app.store.pending(self.session_id)
        if pending is not None:
            print(f"(waiting for your answer about: {pending.question})")
        if first:
            print(f"› {first if len(first) < 200 else first[:200] + '…'}")
            await self.turn(first, quoted)
        while True:
            try:
                text = await self.input.read()
            except KeyboardInterrupt:
                continue
            except EOFError:
                print()
                return 0
            if not text:
                continue
            if text.startswith("/"):
                if await self.command(text) == "exit":
                    return 0
                continue
            await self.turn(text)

    async def turn(self, question: str, quoted: bool = False) -> None:
        progress = Progress(enabled=self.progress_enabled, render=self.render)
        task: asyncio.Future[Any] = asyncio.ensure_future(
            self.app.ask(Question(question=question, session_id=self.session_id, quoted=quoted), progress.on_event))
        loop = asyncio.get_running_loop()
        loop.add_signal_handler(signal.SIGINT, task.cancel)
        try:
            with self.input.keys_kept():
                await task
        except asyncio.CancelledError:
            progress.finish()
            print("(cancelled)")
            return
        except AssistantError as e:
            progress.finish()
            print(f"error: {e.one_line()}")
            return
        finally:
            loop.remove_signal_handler(signal.SIGINT)
        progress.finish()
        if getattr(task.result(), "replaced", None) == TOO_SMALL and not self._offered:
            await self._offer_pull(question)

    async def _offer_pull(self, question: str) -> None:
        """The built-in model declined as too small: say, once a session, the command that gets the capable model
        right here (in-process only: a daemon answers with the models it loaded, and its user pulls with the
        command named). A command the user types, never a key read off the next question."""
        from assistant.capable import CAPABLE_MODEL, CAPABLE_SIZE

        if getattr(getattr(self.app, "backend", None), "reset", None) is None:
            return
        self._offered, self._declined = True, question
        print(f"/pull gets {CAPABLE_MODEL} ({CAPABLE_SIZE}) now and asks this again with it.")

    async def _pull(self) -> None:
        """``/pull``: the capable model for the embedded engine, then the declined question asked again."""
        from assistant.capable import CAPABLE_MODEL
        from assistant.frontends.pulling import pull_model

        reset = getattr(getattr(self.app, "backend", None), "reset", None)
        if reset is None:
            print(f"the daemon answers this chat: pull with `assistant models pull {CAPABLE_MODEL}`")
            return
        question = self._declined

        try:
            name, _ = await pull_model(self.app.settings, CAPABLE_MODEL)
        except AssistantError as e:
            print(f"error: {e.one_line()}")
            return
        self.app.settings.model = name
        await reset()
        if question:
            print(f"{name} answers from now on; asking again.")
            self._declined = None
            await self.turn(question)
        else:
            print(f"{name} answers from now on.")

    async def command(self, text: str) -> str | None:
        name, *args = text.split()
        store, settings = self.app.store, self.app.settings
        if name in ("/exit", "/quit"):
            return "exit"
        if name == "/help":
            print(help_text(terminal_columns()))
        elif name == "/new":
            self.session_id = store.create_session()
            print(f"new session {self.session_id}")
        elif name == "/sessions":
            print(sessions_table(store.sessions(20), current=self.session_id))
        elif name == "/search":
            self._search(text[len(name):].strip())
        elif name == "/resume":
            self._resume(args)
        elif name == "/copy":
            self._copy(args)
        elif name == "/template":
            self._template(args)
        elif name == "/edit":
            question = await asyncio.get_running_loop().run_in_executor(None, edited_question)
            if question:
                print(f"› {question if len(question) < 200 else question[:200] + '…'}")
                await self.turn(question)
        elif name == "/trace":
            self._trace(args)
        elif name == "/model":
            print(set_model(settings, args))
            if not args:
                print(f"answering now: {await self._answering()}")
        elif name == "/retries":
            if len(args) != 1 or not args[0].isdigit() or not 0 <= int(args[0]) <= 10:
                print("usage: /retries N (0 to 10)")
            else:
                settings.max_retries = int(args[0])
                print(f"max_retries = {settings.max_retries}")
        elif name == "/pull":
            await self._pull()
        elif name == "/schema":
            print(schema_command(settings, " ".join(args)))
        else:
            print(f"unknown command {name}: /help lists the commands")
        return None

    def _search(self, query: str) -> None:
        if not query:
            print("usage: /search TEXT  (earlier questions and answers that contain TEXT)")
            return
        from assistant.frontends.trace_view import logs_text

        rows = self.app.store.logs(10, query)
        print(logs_text(rows) if rows else f"nothing found for '{query}'")

    def _resume(self, args: list[str]) -> None:
        store = self.app.store
        if args and args[0] == "last":  # the conversation left (for /new, say): not this one, and one that was had
            found = next((s.id for s in store.sessions(50, exclude="batch") if s.id != self.session_id and s.turns),
                         None)
        else:
            found = store.find_session(args[0]) if args else None
        if found is None:
            print("usage: /resume ID (an id prefix from /sessions, or 'last')" if not args else
                  f"no session matches '{args[0]}'")
            return
        self.session_id = found
        turns = store.session_turns(found)
        print(f"resumed session {found} ({len(turns)} turn{'s' if len(turns) != 1 else ''})")
        if turns:  # where the conversation stands: its last exchange, shown as the chat shows one
            self._show_exchange(turns[-1].question, turns[-1].answer or f"(no answer: {turns[-1].error})")

    def _trace(self, args: list[str]) -> None:
        """As `assistant trace`: last, last-N (N turns before the last), or an id prefix."""
        ref = args[0] if args else "last"
        ref = f"last-{ref}" if ref.isdigit() else ref
        if not (ref == "last" or ref.startswith("last-") and ref[5:].isdigit()) and not ref.isalnum():
            print("usage: /trace [last | last-N | N | ID] (N turns before the last; as `assistant trace`)")
            return
        turn_id = self.app.store.find_turn(ref, self.session_id)
        turn = self.app.store.turn(turn_id) if turn_id else None
        print(trace_view.render(turn) if turn else "no such turn in this session")

    def _show_exchange(self, question: str, answer: str, lines: int = 8) -> None:
        """A question and its answer as the chat shows them: the answer's Markdown rendered and wrapped to the
        terminal (its first ``lines`` lines; /trace shows the rest)."""
        from assistant.control import without_controls

        head, _, rest = last_exchange(question, answer, lines).partition("\n")
        print(head)
        shown = without_controls(answer).strip().splitlines()
        progress = Progress(enabled=False, live=True, render=self.render)
        progress.on_event({"type": "answer_delta", "text": "\n".join(shown[:lines])})
        progress.finish()
        if len(shown) > lines:
            print(f"… ({len(shown) - lines} more lines: /trace shows all)")



    def _template(self, args: list[str]) -> None:
        """A saved template from here on: its instructions, its model for every role, its options (through the
        daemon too: the chat's per-turn settings go with each question)."""
        from assistant.envnames import OPTIONS
        from assistant.frontends import templates
        from assistant.paths import resolve_paths

        config_dir = resolve_paths().config_dir
        if len(args) != 1:
            names = templates.names(config_dir)
            print("templates: " + ", ".join(names) + " (/template NAME uses one)" if names else
                  "no templates (save one: assistant ask --save NAME -s 'your instructions')")
            return
        from pydantic import ValidationError

        from assistant.config import plain_rule
        from assistant.config_load import with_changes

        try:
            template = templates.load(config_dir, args[0])
        except AssistantError as e:
            print(f"error: {e.one_line()}")
            return
        settings = self.app.settings
        updates: dict[str, Any] = {OPTIONS[k]: v for k, v in template.options.items()}
        updates.update({k: v for k, v in (template.model_extra or {}).items() if v is not None})  # its flag rows
        try:
            checked = with_changes(settings, updates)  # all or nothing, by the settings' rules
        except ValidationError as e:
            first = e.errors()[0]
            print(f"error: template {args[0]}: {first['loc'][0]} {first.get('input')}: {plain_rule(first)}; "
                  f"nothing changed (assistant templates edit {args[0]})")
            return
        for key in updates:  # the chat's settings object is shared (with the daemon's client): changed in place
            setattr(settings, key, getattr(checked, key))
        if template.model:
            set_model(settings, [template.model])
        print(f"template {args[0]} from here on: {template.summary()}")

    def _copy(self, args: list[str]) -> None:
        from assistant.frontends.desktop import TMUX_BUFFER, copy
        from assistant.frontends.markdown import code_text
        from assistant.control import without_controls
        from assistant.pipeline.language import without_note

        if args not in ([], ["code"]):
            print("usage: /copy [code] (the last answer, or only its code blocks)")
            return
        turns = self.app.store.session_turns(self.session_id)
        answer = without_note(without_controls(turns[-1].answer or "")) if turns else ""
        if not answer:
            print("nothing to copy yet: no answer in this session")
            return
        if args == ["code"]:
            code = code_text(answer)
            if code is None:
                print("the last answer has no code block (/copy copies all of it)")
                return
            answer = code
        try:
            how = copy(answer)
        except OSError as e:
            print(f"could not copy: {e}")
            return
        what = "its code" if args else "the last answer"
        if how == TMUX_BUFFER:
            print(f"copied {what} ({len(answer):,} characters) into tmux's paste buffer: prefix then ] pastes it (and "
                  "with tmux's set-clipboard on, your terminal's clipboard has it too)")
        else:
            print(f"copied {what} ({len(answer):,} characters) with {how}")


def one_line(title: str | None) -> str:
    """A session's title on one line (a question of several lines titles its session)."""
    from assistant.control import without_controls

    return " ".join(without_controls(title or "").split())


def last_exchange(question: str, answer: str, lines: int = 8) -> str:
    """A resumed session's last question and answer, the answer cut to its first ``lines`` lines."""
    from assistant.control import without_controls

    shown = without_controls(answer).strip().splitlines()
    more = f"\n  … ({len(shown) - lines} more lines: /trace shows all)" if len(shown) > lines else ""
    q = without_controls(question).strip().splitlines() or [""]
    return f"› {q[0]}{' …' if len(q) > 1 else ''}\n" + "\n".join(f"  {line}" for line in shown[:lines]) + more


def edited_question() -> str:
    """The next question, written in the user's editor ($VISUAL, $EDITOR, else nano or vi): what the file holds
    when the editor exits (all of it: a '#' line may be code, so nothing is taken out)."""
    import shlex
    import subprocess
    import tempfile

    from assistant.frontends.desktop import editor as user_editor

    editor = user_editor()
    if editor is None:
        print("no editor: set EDITOR (for example: export EDITOR=nano)")
        return ""
    with tempfile.NamedTemporaryFile("w", suffix=".md", prefix="question-", delete=False, encoding="utf-8") as f:
        path = f.name
    print(f"writing the question in {os.path.basename(shlex.split(editor)[0])}: save and quit to ask it (an empty file asks nothing)")
    try:
        code = subprocess.call([*shlex.split(editor), path])
        text = Path(path).read_text(encoding="utf-8")
    except OSError as e:
        print(f"could not run the editor '{editor}': {e.strerror or e}")
        return ""
    finally:
        Path(path).unlink(missing_ok=True)
    if code != 0:
        print(f"the editor exited with {code}: nothing asked")
        return ""
    question = text.strip()
    if not question:
        print("nothing to ask: the file was empty")
    return question


def set_model(settings: Settings, args: list[str]) -> str:
    if not args:
        return "\n".join(f"{role:<10} {settings.model_for(role)}" for role in ROLES)
    if len(args) == 1:
        settings.model = args[0]
        for role in ROLES:
            setattr(settings, f"{role}_model", None)
        return f"every role now uses {args[0]}"
    if len(args) == 2 and args[0] in ROLES:
        setattr(settings, f"{args[0]}_model", args[1])
        return f"{args[0]} now uses {args[1]}"
    return "usage: /model [ROLE] [NAME]  (ROLE: " + ", ".join(ROLES) + ")"


def sessions_table(rows: list[SessionSummary], current: str | None = None) -> str:
    if not rows:
        return "no sessions"
    out = [f"  {'id':<14}{'kind':<7}{'turns':>6}  {'last active':<21}title"]
    for r in rows:
        mark = "*" if r.id == current else " "
        when = (r.last_active or r.created_at)[:19].replace("T", " ")
        out.append(f"{mark} {r.id:<14}{r.frontend:<7}{r.turns:>6}  {when:<21}{fit(one_line(r.title), 50)}")
    return "\n".join(out)


def schema_command(settings: Any, text: str) -> str:
    """``/schema``: what the answers follow now; ``/schema SCHEMA`` from here on (``/schema multi SCHEMA``: a list
    of such objects, as ``--schema-multi``); ``/schema off`` words again."""
    from pathlib import Path

    from assistant.schema import SchemaError, canonical

    if not text:
        return f"answers follow: {settings.answer_schema}" if settings.answer_schema else \
            "answers are in words (/schema 'name, age int' asks for objects)"
    if text.strip().lower() in ("off", "none"):
        settings.answer_schema = None
        return "answers are in words again"
    many = text.split(None, 1)[0].lower() == "multi" and len(text.split(None, 1)) == 2
    try:
        settings.answer_schema = canonical(text.split(None, 1)[1] if many else text, Path.cwd(), many=many)
    except SchemaError as e:
        return f"/schema: {e}"
    return f"answers follow: {settings.answer_schema}"
