"""The command line's grammar: every command, its flags and its help (argparse: cheap to import)."""

from __future__ import annotations

import argparse
from typing import Callable, NoReturn, TypeAlias

from assistant import __version__
from assistant.envnames import OPTIONS, SETTING_FLAGS
from assistant.errors import EXIT_CODES_HELP

Subcommands: TypeAlias = "argparse._SubParsersAction[Parser]"  # where each command adds its parser


class Parser(argparse.ArgumentParser):
    """argparse, with a hint where a habit from another tool meets a flag that means something else here."""

    def error(self, message: str) -> NoReturn:
        if "-o/--option" in message:
            message += (" (-o KEY VALUE is a model option, e.g. -o temperature 0.2, on every command that answers; "
                        "batch writes its records with --output FILE)")
        super().error(message)


def answering_flags(parser: argparse.ArgumentParser, scope: str) -> None:
    """The flags that shape answers, one meaning on every command that answers (ask, chat, batch)."""
    parser.add_argument("-m", "--model", metavar="NAME", help="use this model for every role")
    parser.add_argument("-o", "--option", nargs=2, action="append", default=[], metavar=("KEY", "VALUE"),
                        help=f"a model option for {scope}: " + ", ".join(OPTIONS) + " (repeatable)")
    for setting, (flags, how) in SETTING_FLAGS.items():  # "{scope}" in a row's help: this command's ("this answer")
        parser.add_argument(*flags, dest=setting, **{**how, "help": how["help"].replace("{scope}", scope)})
    parser.add_argument("--schema-multi", metavar="SCHEMA", help="answer with a list of objects that each follow "
                        "SCHEMA, as one object {\"items\": [...]} (llm's --schema-multi)")
    parser.add_argument("-t", "--template", metavar="NAME", help="use a saved template (its system prompt, model and "
                        "options; flags given here win)")
    parser.add_argument("--save", metavar="NAME", help="save -s, -m, -o and the flags above (--max-retries, --schema, --schema-multi) as template NAME, and stop "
                        "(no question is asked); use it with -t NAME")
    parser.add_argument("--debug", action="store_true", help="show tracebacks")


def _ask_command(sub: Subcommands) -> None:
    ask = sub.add_parser(
        "ask", help="answer one question",
        description="Answer one question and stream the answer to stdout. Progress goes to stderr when it is a terminal.",
        epilog=EXIT_CODES_HELP, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ask.add_argument("question", nargs="*", help="the question; text piped in comes first (as with llm and ollama run), "
                                                 "and '-' alone reads the whole question from stdin")
    ask.add_argument("-f", "--file", "-a", "--attach", action="append", default=[], metavar="FILE",
                     help="a text file to put before the question, or an image (PNG, JPEG, GIF, WebP) for a model "
                          "with vision (repeatable)")
    ask.add_argument("--selection", action="store_true",
                     help="put the text selected in another window before the question, as a file is (X11 primary "
                          "selection, wl-paste --primary on Wayland, else the clipboard): "
                          "assistant ask --selection 'explain this'")
    ask.add_argument("--json", action="store_true", help="print one JSON object instead of streaming text")
    ask.add_argument("-u", "--usage", action="store_true", help="after the answer, the tokens its model calls used "
                                                                 "(on stderr)")
    ask.add_argument("--no-stream", action="store_true", help="print the answer once it is whole, not as it is "
                                                                "written (the status line still shows progress)")
    ask.add_argument("--plain", action="store_true", help="on a terminal, show the answer's Markdown as it is "
                                                          "(on a pipe it always is)")
    ask.add_argument("-x", "--extract", action="store_true",
                     help="print only the answer's code blocks, without their fences (the whole answer when it has "
                          "none), once it is complete: assistant ask -x 'a regex for dates' > date.re")
    ask.add_argument("-c", "--continue", dest="resume_last", action="store_true",
                     help="continue the last conversation (its earlier turns are the context)")
    ask.add_argument("--session", metavar="ID", help="continue this session (an id prefix; see: assistant sessions list)")
    ask.add_argument("--no-log", action="store_true", help="store nothing of this question")
    answering_flags(ask, "this answer")
    ask.add_argument("--no-daemon", action="store_true", help="answer in this process even when the daemon runs")


def _config_command(sub: Subcommands) -> None:
    cfg = sub.add_parser("config", help="the settings: show them, set or unset one, or where their file is",
                         description="Settings come from config.toml, then ASSISTANT_* environment variables "
                                     "(and OLLAMA_HOST), then command-line flags. 'config set KEY VALUE' writes one "
                                     "into config.toml, checked by the setting's own rules (the rest of the file, "
                                     "comments included, is kept); 'config unset KEY' takes it out, so its default "
                                     "applies. A broken file never stops these: show marks what is wrong, set and "
                                     "unset mend it.",
                         epilog="examples:\n  assistant config set max_retries 2\n  assistant config set backend embedded\n"
                                "  assistant config unset temperature\n  assistant config show",
                         formatter_class=argparse.RawDescriptionHelpFormatter)
    cfg.add_argument("action", choices=["show", "set", "unset", "path"],
                     help="show: the effective settings; set KEY VALUE; unset KEY; path: the config file's path")
    cfg.add_argument("key", nargs="?", help="with set or unset: the setting (as in config show)")
    cfg.add_argument("value", nargs="?", help="with set: its value (true/false, a number, text; a list as 'a, b')")


def _batch_command(sub: Subcommands) -> None:
    batch = sub.add_parser(
        "batch", help="answer many questions from a file or stdin, as JSONL",
        description="Answer every question of INPUT and write one JSON object per question: id, question, ok, "
                    "answer, route, attempts, model_calls, latency_ms, turn_id, error (JSONL input fields are "
                    "copied through). INPUT is a text file (one question per line; blank lines and # comments "
                    "skipped), a JSONL file ({\"id\": ..., \"question\": ...} per line), or '-' for stdin. "
                    "A batch is resumable: it is a job keyed by its input's content and the settings that change "
                    "answers (the models, the backend, the tools), and running the same "
                    "command again after an interruption answers only what is missing; the output then holds "
                    "every question exactly once.",
        epilog="--concurrency sends N questions at once. Ollama answers up to OLLAMA_NUM_PARALLEL requests per "
               "model in parallel and queues the rest, so N above that only queues inside Ollama; set both "
               "together (memory permitting).\n\n"
               "exit codes:\n  0  every question answered and checked\n"
               "  1  some questions failed or were left unanswered by server errors (rerun to retry those)\n"
               "  2  bad usage or input\n  3  Ollama not reachable: the batch stopped, progress saved\n"
               "  4  model not installed: the batch stopped, progress saved",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    batch.add_argument("input", nargs="?", help="questions: a .txt or .jsonl file, or '-' for stdin")
    batch.add_argument("--output", metavar="FILE", help="write JSONL here instead of stdout (-o is a model option, as in ask)")
    batch.add_argument("--concurrency", "-j", type=int, default=4, metavar="N", help="questions in flight at once (default 4)")
    batch.add_argument("--unordered", dest="ordered", action="store_false",
                       help="write records as they finish (default: in input order, each as soon as those before it "
                            "are written)")
    batch.add_argument("--ordered", dest="ordered", action="store_true", default=True, help=argparse.SUPPRESS)
    batch.add_argument("--status", action="store_true", help="list batch jobs, their progress and the settings that key them")
    batch.add_argument("--fresh", action="store_true", help="forget what earlier runs of this job answered and start over")
    batch.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                       help="the progress line on stderr (default: when stderr is a terminal and the records do not go "
                            "to a pipe, where the two would mix)")
    answering_flags(batch, "every answer of the batch")


def _models_command(sub: Subcommands) -> None:
    models = sub.add_parser("models", help="list, pull or remove models, or set the default one",
                            description="List the models the backend that answers has (Ollama: with size and "
                                        "capabilities such as tools and thinking), marking the ones in use, and the "
                                        "models pulled for the embedded engine. 'models pull NAME' fetches a model "
                                        "by the names Ollama uses (qwen2.5:1.5b, llama3.2:3b, hf.co/ORG/REPO:QUANT): "
                                        "Ollama pulls it when it answers; otherwise its GGUF is downloaded for the "
                                        "embedded engine (resumable, verified against the registry's digest). "
                                        "'models default NAME' writes model = NAME into config.toml; 'models rm NAME' "
                                        "deletes a pulled model.",
                            epilog="examples:\n  assistant models pull qwen2.5:1.5b\n"
                                   "  assistant models pull hf.co/bartowski/Llama-3.2-1B-Instruct-GGUF:Q4_K_M --to embedded\n"
                                   "  assistant models default qwen2.5:1.5b",
                            formatter_class=argparse.RawDescriptionHelpFormatter)
    models.add_argument("action", nargs="?", choices=["list", "default", "pull", "rm"], default="list")
    models.add_argument("name", nargs="?", help="with 'default', 'pull' or 'rm': the model")
    models.add_argument("--to", choices=["auto", "ollama", "embedded"], default="auto",
                        help="with 'pull': into Ollama or for the embedded engine (default: Ollama when it answers)")
    models.add_argument("--yes", "-y", action="store_true", help="with 'pull': make it the default without asking")
    models.add_argument("--json", action="store_true", help="one JSON object per model")


def _tools_command(sub: Subcommands) -> None:
    tools = sub.add_parser("tools", help="list the tools (source, arguments, what each may reach); grant or revoke a "
                           "plugin's permissions",
                           description="List the tools: built-in, plugins and MCP servers' tools, with their arguments "
                                       "and what each may reach. A plugin starts with no folders and no network: what it "
                                       "asks for is listed as pending until you grant it ('tools grant NAME'); "
                                       "'tools revoke NAME' takes it all back. Your own folders, the assistant's and "
                                       "the stores of secrets can never be granted.")
    tools.add_argument("action", nargs="?", choices=["list", "grant", "revoke"], default="list")
    tools.add_argument("name", nargs="?", help="with grant or revoke: the plugin (its name in 'assistant tools')")
    tools.add_argument("--yes", action="store_true", help="with grant: grant without asking")
    tools.add_argument("--json", action="store_true", help="one JSON object: each tool with its argument schema")


def _chat_command(sub: Subcommands) -> None:
    chat = sub.add_parser("chat", help="interactive chat with sessions, follow-ups and traces",
                          description="An interactive chat. Answers stream; follow-ups use the session's context; "
                                      "type /help inside for the commands.")
    chat.add_argument("message", nargs="*", help="a first message to send (the -f files come before it)")
    chat.add_argument("-f", "--file", action="append", default=[], metavar="FILE",
                      help="a text file to put before the first message (repeatable)")
    chat.add_argument("-c", "--continue", dest="resume_last", action="store_true", help="resume the most recent chat")
    chat.add_argument("--session", metavar="ID", help="resume this session (an id prefix)")
    chat.add_argument("--plain", action="store_true", help="show answers' Markdown as it is, not as formatting")
    answering_flags(chat, "every answer of the chat")
    chat.add_argument("--no-daemon", action="store_true", help="answer in this process even when the daemon runs")


def _daemon_command(sub: Subcommands) -> None:
    daemon = sub.add_parser(
        "daemon", help="the background daemon: warm models, a local API, the global hotkey",
        description="start: run it in the background; stop; restart; status: is it running, and is the hotkey active "
                    "(and why not); run: stay in the foreground (for service managers); install: write a systemd user "
                    "unit (Linux) or a launchd agent (macOS) that carries OLLAMA_HOST and your ASSISTANT_* variables; uninstall: "
                    "remove it. "
                    "The daemon rereads config.toml when it changes (or on SIGHUP); a question asked with other "
                    "settings than the daemon's (another OLLAMA_HOST, say) is answered in the asking process.",
    )
    daemon.add_argument("action", choices=["start", "stop", "restart", "status", "run", "install", "uninstall"])


def _templates_command(sub: Subcommands) -> None:
    templates = sub.add_parser("templates", help="saved prompts: list, show, edit or remove them",
                               description="A template keeps a system prompt, model options and a model under a name "
                                           "(as llm --save and aichat's roles): save one with --save NAME on ask, chat "
                                           "or batch, use it with -t NAME (or /template NAME in the chat). Each is a "
                                           "plain TOML file in the config folder's templates/, for editing by hand.",
                               epilog="examples:\n  assistant ask --save terse -s 'Answer in one sentence.' -o temperature 0.2\n"
                                      "  assistant ask -t terse 'Why is the sky blue?'\n  assistant templates edit terse",
                               formatter_class=argparse.RawDescriptionHelpFormatter)
    templates.add_argument("action", nargs="?", choices=["list", "show", "edit", "rm", "path"], default="list",
                           help="list (default); show NAME; edit NAME (in $EDITOR, checked when saved); rm NAME; path: "
                                "the folder")
    templates.add_argument("name", nargs="?", help="the template")


def _popup_command(sub: Subcommands) -> None:
    sub.add_parser("popup", help="open the popup through the running daemon (bind this to a desktop shortcut)")


def _doctor_command(sub: Subcommands) -> None:
    doctor = sub.add_parser("doctor", help="check Ollama, the models, the embedded backend, state, weather and hotkey",
                            description="Check what the assistant needs and print each finding with what to do. "
                                        "Exits 1 only on problems that stop it from answering.")
    doctor.add_argument("--json", action="store_true", help="print the findings as JSON")


def _sessions_command(sub: Subcommands) -> None:
    sessions = sub.add_parser("sessions", help="list, show, delete or export sessions",
                              description="Sessions are chats (and the popup's), the one rolling session of one-shot "
                                          "`ask` questions, and one per batch job.")
    sessions.add_argument("action", choices=["list", "show", "delete", "export"])
    sessions.add_argument("id", nargs="?", help="a session id (or a unique prefix, or 'last')")
    sessions.add_argument("--format", choices=["jsonl", "markdown"], help="export: jsonl or markdown (default)")
    sessions.add_argument("-n", "--limit", type=int, metavar="N", help="list: the N most recent (default 20; 0: all)")
    sessions.add_argument("--kind", choices=["chat", "ask", "batch"], help="list: only chats, the ask session, or batch jobs")
    sessions.add_argument("--json", action="store_true", help="list: one JSON object per session")
    sessions.add_argument("--yes", "-y", action="store_true", help="delete: without asking (scripts)")


def _logs_command(sub: Subcommands) -> None:
    logs = sub.add_parser("logs", help="every stored turn, newest last: search them, or switch logging of asks off",
                          description="Print stored turns (questions, answers, models), the most recent last. "
                                      "`assistant logs off` stops storing one-shot `ask` questions (chats keep their "
                                      "turns: they are the chat's context); `assistant logs on` starts again.")
    logs.add_argument("switch", nargs="?", choices=["on", "off", "status", "prune"],
                      help="switch the logging of asks, or show it; prune: delete turns older than --older-than")
    logs.add_argument("--older-than", metavar="AGE", help="with prune: 30d, 12h, 2w (a number alone is days)")
    logs.add_argument("--yes", "-y", action="store_true", help="with prune: delete without asking (scripts; on a "
                      "terminal it says what it will delete and asks). Sessions in use by a chat or the daemon are kept")
    logs.add_argument("-n", "--count", type=int, metavar="N", help="how many turns (default 3, and all with --data; 0: all)")
    logs.add_argument("-q", "--query", metavar="TEXT", help="only turns whose question or answer contains TEXT")
    logs.add_argument("-m", "--model", help="only turns that MODEL answered a call of")
    logs.add_argument("-s", "--session", metavar="ID", help="only the turns of this session (an id prefix, or 'last')")
    logs.add_argument("-c", "--conversation", action="store_true", help="only the turns of the last chat")
    logs.add_argument("-r", "--response", action="store_true",
                      help="print only the last answer, as it was shown (with -q or -m: the last that matches)")
    logs.add_argument("-x", "--extract", action="store_true",
                      help="print only the last answer's code blocks (the whole answer when it has none)")
    logs.add_argument("--json", action="store_true", help="one JSON object per turn")
    logs.add_argument("--schema", metavar="SCHEMA", help="only turns answered with this schema: as given to ask "
                      "(JSON, a file, 'name, age int') or its id")
    logs.add_argument("--schema-multi", metavar="SCHEMA", help="only turns answered with --schema-multi SCHEMA")
    logs.add_argument("--data", action="store_true", help="print only the objects answered, one JSON line each")
    logs.add_argument("--data-array", action="store_true", help="print the objects answered as one JSON array")
    logs.add_argument("--data-key", metavar="KEY", help="print the objects in each answer's KEY (with --schema-multi: "
                      "items), one per line")


def _trace_command(sub: Subcommands) -> None:
    trace = sub.add_parser("trace", help="show one turn as a tree: route, model calls, tool calls, verdicts, retries")
    trace.add_argument("turn", nargs="?", default="last", help="a turn id (or prefix), 'last' (default) or 'last-N'")
    trace.add_argument("--json", action="store_true", help="print the whole turn as JSON")


def _reminders_command(sub: Subcommands) -> None:
    reminders = sub.add_parser(
        "reminders", help="the reminders and timers you set in words: list them, or cancel one",
        description="Reminders and timers are set in words (`assistant ask \"remind me at 4 to call the dentist\"`, "
                    "\"set a timer for 10 minutes\", \"提醒我半小时后关火\") and fired by the daemon as desktop "
                    "notifications (`assistant daemon start`). Without an action: the pending ones, then the latest "
                    "that fired, were missed or were cancelled.")
    reminders.add_argument("action", nargs="?", choices=["list", "cancel"], default="list")
    reminders.add_argument("id", nargs="*", help="cancel: the reminder's number (#3 or 3), or 'all'")
    reminders.add_argument("--json", action="store_true", help="list: a JSON array of objects (id, kind, text, due "
                           "in ISO 8601 with its UTC offset, state: pending, fired, missed or cancelled, fired_at)")
    reminders.add_argument("-a", "--all", action="store_true", help="list: every one kept, not only the last 50")


def _ps_command(sub: Subcommands) -> None:
    sub.add_parser("ps", help="the models loaded now: where, their size, how much is in GPU memory, until when",
                   description="Which models are loaded, as 'ollama ps' says it for an Ollama server (each host of "
                               "'hosts'), and what the embedded engine of a running daemon holds.")


def _completion_command(sub: Subcommands) -> None:
    completion = sub.add_parser("completion", help="a shell completion script: bash, zsh or fish",
                                description="Print a completion script for your shell. bash: add "
                                            "'source <(assistant completion bash)' to ~/.bashrc; zsh: "
                                            "'source <(assistant completion zsh)' to ~/.zshrc; fish: "
                                            "'assistant completion fish > ~/.config/fish/completions/assistant.fish'.")
    completion.add_argument("shell", nargs="?", choices=["bash", "zsh", "fish"])
    completion.add_argument("--values", choices=["models", "sessions", "options"], help=argparse.SUPPRESS)


# The commands, in the order `assistant --help` lists them: each adds its own parser.
PARSERS: tuple[Callable[[Subcommands], None], ...] = (
    _ask_command, _config_command, _batch_command, _models_command, _tools_command, _chat_command, _daemon_command,
    _templates_command, _popup_command, _doctor_command, _sessions_command, _logs_command, _trace_command,
    _reminders_command, _ps_command, _completion_command,
)


def build_parser() -> argparse.ArgumentParser:
    p = Parser(
        prog="assistant",
        description="A local-first assistant on local models (Ollama, an OpenAI-compatible server, or in-process): "
                    "it routes each question to chat or a tool, "
                    "checks the tool's result, and streams a grounded answer.",
        epilog="State lives under the platform's config/data dirs, or under $ASSISTANT_HOME when set.",
    )
    p.add_argument("--version", action="version", version=f"assistant {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    for add in PARSERS:
        add(sub)
    p.set_defaults(_commands=sub.choices)
    return p


def short_help(parser: argparse.ArgumentParser) -> str:
    """``assistant`` alone: one line per command, and where the rest is."""
    commands = parser._defaults.get("_commands") or {}
    helps = {a.dest: a.help for action in parser._subparsers._group_actions  # type: ignore[union-attr]  # argparse keeps a subcommand's help in private fields only
             for a in getattr(action, "_choices_actions", [])}
    lines = ['assistant: a local-first assistant. Try: assistant ask "123 * 456 是多少?"', "", "commands:"]
    lines += [f"  {name:<11} {helps.get(name) or ''}" for name in commands]
    lines += ["", "assistant COMMAND --help explains a command; assistant --help shows everything."]
    return "\n".join(lines)
