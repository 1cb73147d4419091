"""Shell completion scripts for bash, zsh and fish, written from the command line's own parser, so that they never
drift from it: the commands, each command's options, and the values an argument or an option takes."""

from __future__ import annotations

import argparse
import asyncio
import shlex
from typing import TYPE_CHECKING, Awaitable, TypeVar

if TYPE_CHECKING:
    from assistant.config import Settings

T = TypeVar("T")

FILE_OPTIONS = {"-f", "--file", "--output"}  # options whose value is a path
# options whose value the running assistant knows (`assistant completion --values KIND`)
DYNAMIC = {"-m": "models", "--model": "models", "--session": "sessions"}


def model_names(settings: Settings, timeout: float = 3.0) -> list[str]:
    """The backend's models (asked with a deadline, in a thread of its own so that it works inside a running event
    loop too), or the configured ones when it does not answer."""
    import concurrent.futures

    from assistant.models.select import list_models

    from assistant.config import ROLES

    configured = sorted({settings.model_for(r) for r in ROLES})
    try:
        with concurrent.futures.ThreadPoolExecutor(1) as pool:
            _, found = pool.submit(asyncio.run, _within(list_models(settings), timeout)).result(timeout + 1)
    except Exception:
        return configured
    return sorted({m["name"] for m in found} | set(configured))


async def _within(call: Awaitable[T], timeout: float) -> T:
    return await asyncio.wait_for(call, timeout)


def values(kind: str) -> list[str]:
    """What `-m`, `--session` and `-o` take here and now, for the shell's completion."""
    from assistant.envnames import OPTIONS

    if kind == "options":
        return list(OPTIONS)
    from assistant.config_load import load_settings
    from assistant.paths import resolve_paths

    paths = resolve_paths()
    settings = load_settings(paths)
    if kind == "models":
        return model_names(settings)
    from assistant.store import Store

    if not paths.database.exists():
        return []
    store = Store(paths.database)
    try:
        return ["last", *(s.id for s in store.sessions(30))]
    finally:
        store.close()


def _tree(parser: argparse.ArgumentParser) -> dict[str, dict]:
    """{command: {"help", "options": [(flags, help, choices)], "values": [positional choices]}}."""
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    helps = {c.dest: c.help or "" for c in sub._choices_actions}
    tree: dict[str, dict] = {}
    for name, command in sub.choices.items():
        options, values = [], []
        for action in command._actions:
            if action.option_strings:
                if "-h" in action.option_strings or action.help == argparse.SUPPRESS:  # hidden: kept for old scripts
                    continue
                options.append((action.option_strings, action.help or "", list(action.choices or [])))
            elif action.choices:
                values += list(action.choices)
        tree[name] = {"help": helps.get(name, ""), "options": options, "values": values}
    return tree


def bash(parser: argparse.ArgumentParser, prog: str = "assistant") -> str:
    tree = _tree(parser)
    cases = []
    for name, c in tree.items():
        words = [f for flags, _, _ in c["options"] for f in flags] + c["values"]
        cases.append(f"        {name}) words={shlex.quote(' '.join(words))} ;;")
    value_cases = []
    for c in tree.values():
        for flags, _, choices in c["options"]:
            if choices:
                value_cases.append(f"        {'|'.join(flags)}) COMPREPLY=($(compgen -W {shlex.quote(' '.join(choices))} -- \"$cur\")); return ;;")
    value_cases = sorted(set(value_cases))
    fn = f"_{prog.replace('-', '_')}_complete"
    from assistant.envnames import OPTIONS

    dynamic = [f"        {flag}) COMPREPLY=($(compgen -W \"$({prog} completion --values {kind} 2>/dev/null)\" -- \"$cur\")); return ;;"
               for flag, kind in sorted(DYNAMIC.items())]
    return "\n".join([
        f"# bash completion for {prog}: source <({prog} completion bash)",
        f"{fn}() {{",
        '    local cur="${COMP_WORDS[COMP_CWORD]}" prev="${COMP_WORDS[COMP_CWORD-1]}" words=""',
        "    if [ \"$COMP_CWORD\" -eq 1 ]; then",
        f"        COMPREPLY=($(compgen -W {shlex.quote(' '.join([*tree, '--help', '--version']))} -- \"$cur\"))",
        "        return",
        "    fi",
        '    if [ "$COMP_CWORD" -ge 3 ] && { [ "${COMP_WORDS[COMP_CWORD-2]}" = "-o" ] || [ "${COMP_WORDS[COMP_CWORD-2]}" = "--option" ]; }; then',
        "        COMPREPLY=(); return  # an option's VALUE: no suggestion",
        "    fi",
        "    case \"$prev\" in",
        f"        {'|'.join(sorted(FILE_OPTIONS))}) COMPREPLY=($(compgen -f -- \"$cur\")); return ;;",
        f"        -o|--option) COMPREPLY=($(compgen -W {shlex.quote(' '.join(OPTIONS))} -- \"$cur\")); return ;;",
        *dynamic,
        *value_cases,
        "    esac",
        "    case \"${COMP_WORDS[1]}\" in",
        *cases,
        "    esac",
        "    COMPREPLY=($(compgen -W \"$words\" -- \"$cur\"))",
        "}",
        f"complete -o default -F {fn} {prog}",
        "",
    ])


def zsh(parser: argparse.ArgumentParser, prog: str = "assistant") -> str:
    """zsh runs the bash script through its bashcompinit layer (part of zsh)."""
    return "\n".join([
        f"# zsh completion for {prog}: source <({prog} completion zsh)",
        "autoload -U +X compinit && compinit",
        "autoload -U +X bashcompinit && bashcompinit",
        bash(parser, prog),
    ])


def _fish_quote(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def fish(parser: argparse.ArgumentParser, prog: str = "assistant") -> str:
    from assistant.envnames import OPTIONS

    tree = _tree(parser)
    lines = [f"# fish completion for {prog}: {prog} completion fish | source",
             f"complete -c {prog} -f"]
    for name, c in tree.items():
        lines.append(f"complete -c {prog} -n __fish_use_subcommand -a {name} -d {_fish_quote(c['help'][:60])}")
        when = f"-n '__fish_seen_subcommand_from {name}'"
        if c["values"]:
            lines.append(f"complete -c {prog} {when} -a {_fish_quote(' '.join(c['values']))}")
        for flags, help_text, choices in c["options"]:
            parts = [f"-l {f[2:]}" if f.startswith("--") else f"-s {f[1:]}" for f in flags]
            kind = next((DYNAMIC[f] for f in flags if f in DYNAMIC), None)
            if set(flags) & FILE_OPTIONS:
                extra = " -r -F"
            elif "--option" in flags:
                extra = f" -x -a {_fish_quote(' '.join(OPTIONS))}"
            elif kind:
                extra = f" -x -a '({prog} completion --values {kind} 2>/dev/null)'"
            else:
                extra = f" -x -a {_fish_quote(' '.join(choices))}" if choices else ""
            lines.append(f"complete -c {prog} {when} {' '.join(parts)} -d {_fish_quote(help_text[:60])}{extra}")
    return "\n".join(lines) + "\n"


SHELLS = {"bash": bash, "zsh": zsh, "fish": fish}
