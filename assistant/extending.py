"""Where the assistant is extended: each extension point, the one declaration that wires it in, and the files an
addition touches. Nothing reads this at run time; it is the map a newcomer starts from, held to the code by
``tests/test_extending.py`` (every declaration named here exists, every file is there) and printed by
``scripts/house.py``.

A built-in tool is one module and one line: its class says everything else (its arguments are its pydantic
``Args``, from which the schema the model sees is derived; its rule is its ``route`` with the requests it
``reads`` and the ``near_misses`` it must not take, which the tests hold it to without naming it)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Point:
    what: str  # the kind of addition, as a newcomer says it
    declared: str  # "module:NAME": the one declaration that wires it in
    touches: tuple[str, ...]  # every file an addition writes, the declaration's included
    how: str  # what to write, in a sentence


POINTS: tuple[Point, ...] = (
    Point("a built-in tool", "tools.builtin:BUILTIN",
          ("tools/<name>.py (or a package tools/<name>/)", "tools/builtin.py"),
          "a `tools.Tool[Args]` subclass (name, description, a pydantic `Args`, `async run`; its rule: `route`, "
          "`reads`, `near_misses`; every other hook is optional) and one line of `BUILTIN`"),
    Point("a tool from your own package", "tools.plugins:GROUP",
          ("your package's pyproject.toml", "your package's module"),
          "the same class, named by an entry point in the `assistant.tools` group; it runs in the jail with what "
          "the user grants (docs/tools.md)"),
    Point("an MCP server", "tools.mcp_config:McpServerConfig", ("config.toml (the user's)",),
          "a `[mcp_servers.NAME]` table: its command, its folders and network (docs/tools.md)"),
    Point("a backend", "assistant.models.select:BACKENDS",
          ("assistant/models/<name>.py", "assistant/models/select.py", "assistant/config.py",
           "tests/models/test_profile.py"),
          "a module with a `Backend` (`chat`, `profile`, `count_tokens`, `aclose`) and its `build`, `reachable`, "
          "`doctor`, `models`; a row of `BACKENDS`; its settings; a row of the profile test, which names a "
          "backend without one"),
    Point("a per-turn setting", "assistant.envnames:SETTING_FLAGS",
          ("assistant/config.py", "assistant/envnames.py"),
          "its field in `Settings`, then one row of `SETTING_FLAGS`: every answering command takes the flag, the "
          "daemon takes it per turn, templates keep it (`scripts/settings_reference.py` regenerates the reference)"),
    Point("a recogniser (no tool's: small talk, what the assistant can do, out of reach)",
          "assistant.pipeline.router:by_rule",
          ("assistant/pipeline/recognisers/<name>.py", "assistant/pipeline/router.py"),
          "a module of pure functions over the request, and its call in `router.by_rule`, where the order is the "
          "decision"),
)
