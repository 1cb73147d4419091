"""``assistant templates`` and the ``--save NAME`` / ``-t NAME`` flags of the commands that answer."""

from __future__ import annotations

import argparse
import shlex
import subprocess
import sys

from assistant.control import one_line, without_controls
from assistant.errors import ConfigError
from assistant.frontends import templates as store
from assistant.paths import resolve_paths


def save_or_apply(args: argparse.Namespace) -> bool:
    """``--save NAME``: write the template the flags describe and say so (True: the command is done). ``-t NAME``:
    fill the flags the user did not give from the template (False: the command goes on with them)."""
    config_dir = resolve_paths().config_dir
    if args.save:
        if args.template:
            raise ConfigError("--save and -t together: give the flags to save, or the template to use.")
        words = getattr(args, "question", None) or getattr(args, "message", None) or getattr(args, "input", None)
        if words:
            raise ConfigError("--save keeps the flags (-s, -m, -o, --max-retries, --schema), not a question; nothing was "
                              "saved.",
                              f"Save first, then ask: assistant ask -t {args.save} \"…\"")
        from assistant.config_file import parse_setting
        from assistant.envnames import OPTIONS
        from assistant.frontends.cli.common import model_options

        model_options(args)  # an unknown option is a usage error, with the nearest name
        # each value as the settings read it: one they refuse is refused now, not at every later use
        options = {key: parse_setting(OPTIONS[key], value) for key, value in args.option}
        from assistant.envnames import SETTING_FLAGS
        from assistant.frontends.cli.common import flag_overrides

        flagged = {k: v for k, v in flag_overrides(args).items() if k in SETTING_FLAGS and v is not None}
        template = store.Template(model=args.model, options=options, **flagged)
        if template == store.Template():
            raise ConfigError("--save with nothing to save.", "Give -s TEXT, -m MODEL, -o KEY VALUE or " +
                              ", ".join(f"{flags[-1]} …" for flags, _ in SETTING_FLAGS.values()) + ".")
        path = store.save(config_dir, args.save, template)
        print(f"saved template {args.save}: {template.summary()}\n  in {path}; use it with -t {args.save}")
        return True
    template = store.load(config_dir, args.template)
    if args.model is None:
        args.model = template.model
    from assistant.envnames import SETTING_FLAGS

    for name in SETTING_FLAGS:  # each flag-set setting the template holds, where the command line gave none
        if getattr(args, name, None) is None:
            setattr(args, name, template.setting(name))
    given = {key for key, _ in args.option}
    args.option = [[k, str(v)] for k, v in template.options.items() if k not in given] + list(args.option)
    return False


def templates(args: argparse.Namespace) -> int:
    config_dir = resolve_paths().config_dir
    if args.action == "path":
        print(store.folder(config_dir))
        return 0
    if args.action == "list":
        names = store.names(config_dir)
        if not names:
            print("no templates (save one: assistant ask --save NAME -s 'your instructions' -o temperature 0.2)")
            return 0
        width = max(len(n) for n in names) + 2
        for name in names:
            try:
                line = store.load(config_dir, name).summary()
            except ConfigError as e:
                line = f"! {one_line(e.message, 300)}"
            print(f"{name:<{width}}{line}")
        return 0
    if not args.name:
        raise ConfigError(f"'templates {args.action}' needs a template's name.", "assistant templates lists them.")
    if args.action == "show":
        store.load(config_dir, args.name)  # a broken one is said, not printed as if fine
        print(without_controls(store.text_of(store.path_of(config_dir, args.name))), end="")
    elif args.action == "rm":
        path = store.path_of(config_dir, args.name)
        if not path.exists():
            store.load(config_dir, args.name)  # the "no template named" line, with a near name
        path.unlink()
        print(f"removed template {args.name}")
    else:
        return _edit(config_dir, args.name)
    return 0


def _edit(config_dir, name: str) -> int:
    """Open the template in the user's editor (a new one starts from an example); it is checked when saved, and a
    broken edit is said, with the file kept as written so the next edit can mend it."""
    path = store.path_of(config_dir, name)
    if not path.exists():
        store.save(config_dir, name, store.Template(system="Your instructions for every answer."))
    from assistant.frontends.desktop import editor as user_editor

    editor = user_editor()
    if editor is None:
        raise ConfigError("no editor to open it with.", f"Set EDITOR, or edit {path} by hand.")
    try:
        code = subprocess.call([*shlex.split(editor), str(path)])
    except OSError as e:
        raise ConfigError(f"could not run the editor '{editor}': {e.strerror or e}.", "Set EDITOR to one that runs.") \
            from None
    if code != 0:
        print(f"the editor exited with {code}", file=sys.stderr)
    template = store.load(config_dir, name)
    print(f"template {name}: {template.summary()}")
    return 0
