"""Tools from installed packages (the ``assistant.tools`` entry point group): a tiny package in
``tests/plugin_package``, installed by pip and found by importlib.metadata, run in the sandbox like the built-in tools; broken
plugins skipped with one line each."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from assistant.frontends.doctor import run_checks
from tools.builtin import BUILTIN as TOOLS

BUILTIN = [tool.name for tool in TOOLS]

PACKAGE = Path(__file__).resolve().parents[1] / "plugin_package"


@pytest.fixture(scope="session")
def installed_plugin(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``tests/plugin_package`` installed by pip, as a user installs a plugin, into a directory of its own (the
    test environment stays as it was; a test puts that directory on the path)."""
    pytest.importorskip("setuptools", reason="building the plugin package needs setuptools")
    root = tmp_path_factory.mktemp("plugin")
    source, site = root / "src", root / "site"
    shutil.copytree(PACKAGE, source)  # the build writes into its source: not into the checkout
    done = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index",
                           "--no-build-isolation", "--target", str(site), str(source)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return site


@pytest.fixture
def plugin(installed_plugin: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.syspath_prepend(str(installed_plugin))
    return installed_plugin


async def test_a_plugin_tool_joins_the_registry_and_runs_in_the_sandbox(plugin, make_app):
    app = make_app(sandboxed=True)
    assert app.registry.names()[:len(BUILTIN)] == BUILTIN and "echo" in app.registry.names()
    result = await app.ask("echo hello from a plugin")
    assert result.ok and result.route == "echo" and result.model_calls == 0
    assert result.answer == "hello from a plugin"
    assert result.tool_calls[0].result["pid"] != __import__("os").getpid()  # it ran in a worker process
    assert app.registry.get("echo").source == "plugin echo-plugin"  # as `assistant tools` lists it


def test_each_broken_plugin_is_skipped_with_one_line_saying_why(plugin, make_app):
    app = make_app()
    assert [n for n in app.registry.names() if n not in BUILTIN] == ["echo"]
    skipped = "\n".join(app.registry.skipped)
    assert len(app.registry.skipped) == 5
    assert "plugin 'missing' (no_such_module:Tool, from echo-plugin): skipped, ModuleNotFoundError" in skipped
    assert "'notatool'" in skipped and "not a tools.Tool" in skipped
    assert "'shout'" in skipped and "lower-case letters" in skipped
    assert "'noschema'" in skipped and "not a pydantic model" in skipped
    assert "'clash'" in skipped and "'calculator' is taken" in skipped


async def test_doctor_reports_broken_plugins_and_still_runs(plugin, fake, tmp_path, gazetteer_index):
    from assistant.config import Settings
    from conftest import paths_under

    checks = await run_checks(Settings(backend="ollama", ollama_host=fake.url, gazetteer_index=gazetteer_index),
                              paths_under(tmp_path / "state"))
    tools = next(c for c in checks if c.name == "tools")
    assert tools.level == "ok" and "echo" in tools.detail
    plugins = [c for c in checks if c.name.startswith("plugin '")]
    assert len(plugins) == 5 and all(c.level == "warn" and not c.blocking for c in plugins)


@pytest.mark.slow  # whole processes on a file system remounted read-only
def test_a_read_only_home_with_a_plugin_installed_is_the_documented_line(installed_plugin, home, tmp_path):
    """The plugin's log, its cache and its host's folders are opened best effort, as the tools' are: a home that
    turned read-only (a full or remounted disk) gives the store's one line, or the answer, never an internal error."""
    import json
    import os

    from conftest import cli_env, closed_port

    disk = tmp_path / "disk"
    disk.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=16m", "tmpfs", str(disk)], capture_output=True).returncode:
        pytest.skip("cannot mount a tmpfs here (not root, or no CAP_SYS_ADMIN): a read-only home cannot be made")
    try:
        env = cli_env(home, ASSISTANT_HOME=str(disk / "home"), OLLAMA_HOST=f"127.0.0.1:{closed_port()}",
                      PYTHONPATH=os.pathsep.join([str(installed_plugin), os.environ.get("PYTHONPATH", "")]))

        def run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
            return subprocess.run([sys.executable, "-m", "assistant", *args], env=env, capture_output=True, text=True,
                                  timeout=120, input=stdin)

        first = run("ask", "2+3")  # the home is made, with a store, while it can be
        assert first.returncode == 0 and first.stdout.strip() == "2+3 = 5", first.stderr
        for log in (disk / "home").rglob("*.log"):
            log.unlink()  # the logs must be made again, where they cannot be
        assert subprocess.run(["mount", "-o", "remount,ro", str(disk)], capture_output=True).returncode == 0
        for args, stdin in ((("ask", "2+3"), None), (("ask", "--no-log", "2+3"), None),
                            (("batch", "-"), json.dumps({"question": "2+3"}) + "\n"), (("doctor",), None)):
            done = run(*args, stdin=stdin)
            assert "internal error" not in done.stderr and "Traceback" not in done.stderr, (args, done.stderr)
            assert done.returncode in ((0, 1) if args == ("doctor",) else (0, 7)), (args, done.returncode, done.stderr)
        assert run("ask", "--no-log", "2+3").stdout.strip() == "2+3 = 5"
    finally:
        subprocess.run(["umount", "-l", str(disk)], capture_output=True)


def test_the_plugins_found_are_kept_until_a_package_comes_or_goes(installed_plugin, tmp_path, monkeypatch):
    """What a scan of every installed package's metadata found is read back while no folder of the import path
    has changed; a plugin removed is gone at the next command, one installed is there, a damaged file is scanned
    again."""
    from tools.plugins import discover

    site = tmp_path / "site"
    shutil.copytree(installed_plugin, site)
    monkeypatch.syspath_prepend(str(site))
    kept = tmp_path / "cache" / "entry-points.json"
    first = discover(kept)
    assert "echo" in [e.name for e in first] and kept.exists()
    assert discover(kept) == first  # read back
    kept.write_text('{"stamp": "garbage', encoding="utf-8")
    assert discover(kept) == first  # damaged: scanned again, and written again
    assert json.loads(kept.read_text(encoding="utf-8"))["entries"]
    for shape in ({"entries": [{"name": 1, "value": None, "package": [], "version": {}, "fingerprint": 2}]},
                  {"entries": [{"name": "echo"}]}, {"entries": "echo"}, {"folders": [[1, 2, 3]]}, []):
        garbled = json.loads(kept.read_text(encoding="utf-8"))  # the path and folders as they are, the rest another shape
        garbled = {**garbled, **shape} if isinstance(shape, dict) else shape
        kept.write_text(json.dumps(garbled), encoding="utf-8")
        assert discover(kept) == first, shape  # of another shape: scanned again
    [info] = site.glob("echo_plugin-*.dist-info")
    shutil.rmtree(info)  # uninstalled: its folder changed
    assert "echo" not in [e.name for e in discover(kept)]
