"""Third-party code confined whole: a hostile plugin package (``tests/hostile_plugin``) tries every way around the
jail from its import, its construction, its ``permissions``, its ``route()`` (which runs on every question) and its
``run()``: read a private file, read an API key from the environment, write outside any folder, change a file's mode
and times, read the machine's init, plant an MCP server in the config, declare the assistant's own config folder as
its own, return a result too large to carry, fill its folder past its cap, and read a secret in the folder
``python -m`` was started from. Each is refused, nothing outside changes (modes and times included), and a benign
plugin still routes and answers once the user grants it what it asks for."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import cli_env, paths_under

from assistant.app import build_assistant, build_registry
from assistant.config import Settings
from tools.jail import landlock, seccomp
from tools.jail.grants import Grants, Request, refusal

pytestmark = [
    pytest.mark.skipif(not sys.platform.startswith("linux") or landlock.abi() < 1 or not seccomp.allowlist_available(),
                       reason="the kernel jail needs Linux with Landlock and libseccomp"),
]

PACKAGE = Path(__file__).resolve().parents[1] / "hostile_plugin"
SECRET_TEXT = "the user's private notes 7f3a"
API_KEY = "sk-test-9d2e-not-for-plugins"


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The hostile package, installed by pip into a folder of its own, aimed at this module's paths."""
    pytest.importorskip("setuptools", reason="building the plugin package needs setuptools")
    root = tmp_path_factory.mktemp("hostile")
    state = root / "state"
    paths = paths_under(state)
    targets = {"secret": root / "private" / "notes.txt", "markers": root / "markers", "config_dir": paths.config_dir,
               "config_file": paths.config_file, "fill": root / "fill", "notes": root / "notes", "state": state,
               "site": root / "site", "launch": root / "launch"}
    source = root / "src"
    shutil.copytree(PACKAGE, source)
    (source / "hostile_targets.py").write_text(f"TARGETS = {json.dumps({k: str(v) for k, v in targets.items()})}\n")
    done = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index",
                           "--no-build-isolation", "--target", str(targets["site"]), str(source)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return targets


@pytest.fixture
def world(hostile: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    """A fresh state for each test: the secret (0600, a known time), no markers, a config file, the plugin on the
    path and an API key in the environment."""
    monkeypatch.syspath_prepend(str(hostile["site"]))
    monkeypatch.setenv("OPENAI_API_KEY", API_KEY)
    for key in ("state", "markers", "fill", "notes", "launch"):
        shutil.rmtree(hostile[key], ignore_errors=True)
    hostile["markers"].mkdir(parents=True)
    hostile["secret"].parent.mkdir(parents=True, exist_ok=True)
    hostile["secret"].write_text(SECRET_TEXT)
    hostile["secret"].chmod(0o600)
    os.utime(hostile["secret"], (1_700_000_000, 1_700_000_000))
    hostile["config_dir"].mkdir(parents=True)
    hostile["config_file"].write_text('model = "qwen2.5:3b"\n')
    hostile["config_file"].chmod(0o600)
    return hostile


def untouched(world: dict[str, Path]) -> None:
    """Nothing outside changed: no marker written, the secret's mode and times as they were, the config as it was."""
    assert sorted(os.listdir(world["markers"])) == []
    st = world["secret"].stat()
    assert (st.st_mode & 0o777, st.st_mtime) == (0o600, 1_700_000_000)
    assert world["config_file"].read_text() == 'model = "qwen2.5:3b"\n'


async def registry_of(paths, **settings):  # noqa: ANN001, ANN003, ANN201
    """The tools as they are built now (their hook hosts closed at once: only the descriptions are wanted)."""
    registry = build_registry(Settings(**settings), paths)
    await registry.aclose()
    return registry


def plugin_processes(root: str = "/tmp") -> set[int]:
    """Plugins' hook hosts and sandbox workers alive now whose private working folders are under ``root`` (a test
    gives its own, so that the workers of tests running beside it on other cores are not counted)."""
    found = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cwd = Path(os.readlink(entry / "cwd"))
            except OSError:
                continue
            # <root>/assistant-<uid>[-<ns>]/plugin-<pid>-<random> (tools.jail.homes), or <root>/assistant-plugin-<random>
            if cwd.parent.parent == Path(root) and cwd.parent.name.startswith("assistant-") \
                    and cwd.name.startswith(("plugin-", "tool-")) \
                    or cwd.parent == Path(root) and cwd.name.startswith(("assistant-plugin-", "assistant-tool-")):
                found.add(int(entry.name))
    return found


def left_running(before: set[int], root: str, within: float = 5.0) -> set[int]:
    """Plugin processes under ``root`` started since ``before`` still alive after ``within`` seconds: the killed
    ones' group members die a moment after their leader is reaped (longer on a loaded machine)."""
    deadline = time.monotonic() + within
    while (left := plugin_processes(root) - before) and time.monotonic() < deadline:
        time.sleep(0.05)
    return left


def app_for(world: dict[str, Path], fake, gazetteer_index: str, **overrides):  # noqa: ANN001, ANN201
    settings = Settings(backend="ollama", ollama_host=fake.url, gazetteer_index=gazetteer_index, transport_backoff=0.01,
                        **overrides)
    return build_assistant(settings, paths_under(world["state"]))


async def test_no_plugin_code_runs_in_the_assistant_on_any_question(world, fake, gazetteer_index, monkeypatch):
    """Its import, construction, permissions and route() run for a plain arithmetic question: in the jail."""
    import tempfile

    root = tempfile.mkdtemp(prefix="jail-test-")  # this test's workers' folders, told apart from other tests'
    monkeypatch.setattr(tempfile, "tempdir", root)
    before = plugin_processes(root)
    app = app_for(world, fake, gazetteer_index)
    try:
        plain = await app.ask("2 + 3")
        assert plain.ok and plain.answer.startswith("2 + 3 = 5") and plain.model_calls == 0
        assert plugin_processes(root) - before  # its hook host runs, and is seen where this test looks
        untouched(world)
        snooped = await app.ask("snoop")
    finally:
        await app.aclose()
    assert snooped.ok and snooped.route == "snoop" and snooped.answer.startswith("FOUND")
    shown = snooped.answer
    assert SECRET_TEXT not in shown and API_KEY not in shown and "planted" not in shown
    for where in ("import", "construct", "permissions", "route-snoop", "run"):  # every place tried, every one refused
        assert f"{where}: read the secret refused" in shown and f"{where}: write outside refused" in shown, where
        assert f"{where}: chmod the secret refused" in shown and f"{where}: utime the secret refused" in shown
        assert f"{where}: api key refused" in shown and f"{where}: init's command line refused" in shown
        assert f"{where}: plant an MCP server refused" in shown
    untouched(world)
    assert left_running(before, root) == set()  # nothing of it left running
    registry = build_registry(Settings(), paths_under(world["state"]))
    assert "planted" not in registry.names()
    await registry.aclose()


async def test_a_plugin_cannot_grant_itself_the_assistants_config_folder(world, fake, gazetteer_index, capsys):

    paths = paths_under(world["state"])
    registry = await registry_of(paths)
    planter = registry.get("planter")
    assert planter.permissions.files == []  # it asked; it got nothing
    assert [item for item, _ in planter.decision.refused] == [f"folder {paths.config_dir}"]
    assert "the assistant's own files" in planter.decision.refused[0][1]
    # Not by the user's command, not by a hand-written grant either.
    with pytest.raises(ValueError, match="can never be granted"):
        Grants(paths.config_dir, paths.own).grant("planter", "hostile-plugin", "1.0", [f"folder {paths.config_dir}"])
    (paths.config_dir / "permissions.json").write_text(json.dumps({"plugins": {"planter": {
        "package": "hostile-plugin", "version": "1.0", "items": [f"folder {paths.config_dir}"]}}}))
    assert (await registry_of(paths)).get("planter").permissions.files == []
    app = app_for(world, fake, gazetteer_index)
    try:
        planted = await app.ask("plant")
    finally:
        await app.aclose()
    assert planted.ok and "plant refused (PermissionError)" in planted.answer
    config = world["config_file"].read_text()
    assert "planted" not in config and "allow_unconfined" not in config
    assert (await registry_of(paths)).get("planted_sh") is None


async def test_a_result_too_large_is_a_tool_error_in_the_users_language(world, fake, gazetteer_index):
    app = app_for(world, fake, gazetteer_index)
    try:
        result = await app.ask("hog")
    finally:
        await app.aclose()
    assert not result.ok and result.route == "hog"
    assert "x" * 1000 not in result.answer and len(result.answer) < 2000
    call = result.tool_calls[0]
    assert not call.ok and "larger than" in (call.error or "")


async def test_a_folder_filled_past_its_cap_is_a_tool_error(world, fake, gazetteer_index):
    paths = paths_under(world["state"])
    registry = await registry_of(paths)
    filler = registry.get("filler")
    assert filler.decision.pending == [f"folder {world['fill']}"]
    Grants(paths.config_dir, paths.own).grant("filler", "hostile-plugin", "1.0", filler.decision.pending)
    app = app_for(world, fake, gazetteer_index, tool_folder_files=50)
    try:
        result = await app.ask("fill")
    finally:
        await app.aclose()
    assert not result.ok
    assert "past its cap of 50 files" in (result.tool_calls[0].error or "")


@pytest.mark.slow  # whole assistant processes
async def test_a_benign_plugin_routes_and_answers_after_the_user_grants_it(world, fake, gazetteer_index):
    env = cli_env(world["state"].parent / "home-unused", fake, PYTHONPATH=str(world["site"]))
    env["ASSISTANT_HOME"] = str(world["state"])
    env["ASSISTANT_GAZETTEER_INDEX"] = gazetteer_index
    listed = subprocess.run([sys.executable, "-m", "assistant", "tools"], capture_output=True, text=True, env=env,
                            timeout=120)
    assert listed.returncode == 0, listed.stderr
    assert f"asks for, not granted: folder {world['notes']} (assistant tools grant benign)" in listed.stdout
    assert "asks for, never grantable: folder" in listed.stdout  # the planter's
    before = await _ask_notes(world, fake, gazetteer_index)
    assert not before.ok and not (world["notes"] / "notes.txt").exists()  # not granted: its write is refused
    for args, code, said in ((["grant"], 2, "needs a plugin's name"), (["grant", "nosuch"], 1, "no plugin named 'nosuch'"),
                             (["echo"], 2, "invalid choice")):
        wrong = subprocess.run([sys.executable, "-m", "assistant", "tools", *args], capture_output=True, text=True,
                               env=env, timeout=120)
        assert wrong.returncode == code and said in wrong.stderr and "Traceback" not in wrong.stderr, wrong.stderr
    refused = subprocess.run([sys.executable, "-m", "assistant", "tools", "grant", "benign"], capture_output=True,
                             text=True, env=env, timeout=120, stdin=subprocess.DEVNULL)
    assert refused.returncode == 1 and "--yes" in refused.stderr
    granted = subprocess.run([sys.executable, "-m", "assistant", "tools", "grant", "benign", "--yes"],
                             capture_output=True, text=True, env=env, timeout=120)
    assert granted.returncode == 0 and f"folder {world['notes']}" in granted.stdout, granted.stderr
    after = await _ask_notes(world, fake, gazetteer_index)
    assert after.ok and after.answer.startswith("noted: buy milk") and after.model_calls == 0
    assert (world["notes"] / "notes.txt").read_text() == "buy milk\n"
    revoked = subprocess.run([sys.executable, "-m", "assistant", "tools", "revoke", "benign"], capture_output=True,
                             text=True, env=env, timeout=120)
    assert revoked.returncode == 0
    assert not (await _ask_notes(world, fake, gazetteer_index)).ok
    untouched(world)


async def _ask_notes(world, fake, gazetteer_index):  # noqa: ANN001, ANN202
    app = app_for(world, fake, gazetteer_index)
    try:
        return await app.ask("note buy milk")
    finally:
        await app.aclose()


@pytest.mark.slow  # whole assistant processes
def test_python_m_from_a_folder_holding_a_secret_does_not_open_it(world, fake, gazetteer_index):
    """``python -m`` puts the working directory on sys.path: the plugin's jail must not get it."""
    launch = world["launch"]
    launch.mkdir()
    (launch / "secret.txt").write_text("launch folder secret 51c0")
    env = cli_env(world["state"], fake, PYTHONPATH=str(world["site"]), ASSISTANT_GAZETTEER_INDEX=gazetteer_index)
    done = subprocess.run([sys.executable, "-m", "assistant", "ask", "--json", "snoop"], capture_output=True, text=True,
                          env=env, timeout=120, cwd=launch)
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)["answer"]
    assert answer.startswith("FOUND") and "launch folder secret" not in answer
    untouched(world)


@pytest.mark.slow  # whole assistant processes
def test_an_oversized_result_under_json_is_one_json_object(world, fake, gazetteer_index):
    env = cli_env(world["state"], fake, PYTHONPATH=str(world["site"]), ASSISTANT_GAZETTEER_INDEX=gazetteer_index)
    done = subprocess.run([sys.executable, "-m", "assistant", "ask", "--json", "hog"], capture_output=True, text=True,
                          env=env, timeout=120)
    record = json.loads(done.stdout)
    assert record["ok"] is False and len(done.stdout) < 100_000


def test_what_can_never_be_granted(tmp_path):
    paths = paths_under(tmp_path / "state")
    home = Path.home()
    for folder in (paths.config_dir, paths.data_dir / "sub", paths.cache_dir, paths.log_dir, tmp_path / "state",
                   home, home / ".ssh", home / ".ssh" / "keys", home / ".gnupg", home / ".aws", home / ".mozilla",
                   home / ".config", "/", "/etc", "/usr/lib", sys.prefix, Path(__file__).parents[2] / "tools"):
        assert refusal(folder, paths.own) is not None, folder
    assert refusal("relative/folder", paths.own) == "it is not an absolute path"
    assert refusal(tmp_path / "notes", paths.own) is None


def test_an_update_that_asks_for_more_asks_again(tmp_path):
    grants = Grants(tmp_path / "config")
    asked = Request(files=[str(tmp_path / "a")])
    grants.grant("p", "pkg", "1.0", asked.items())
    same = grants.decide("p", "pkg", "2.0", asked)
    assert same.granted.files == [str(tmp_path / "a")] and same.pending == [] and not same.version_changed
    more = grants.decide("p", "pkg", "2.0", Request(files=[str(tmp_path / "a")], network=["api.example.com"]))
    assert more.pending == ["network api.example.com"] and more.version_changed
    other = grants.decide("p", "another-pkg", "1.0", asked)  # the same name from another package: nothing granted
    assert other.granted.files == [] and other.pending == [f"folder {tmp_path / 'a'}"]
    assert grants.revoke("p") and grants.decide("p", "pkg", "1.0", asked).granted.files == []
    assert oct(grants.path.stat().st_mode & 0o777) == "0o600"


async def test_a_plugin_run_unconfined_by_choice_is_said_in_one_line(world, fake, gazetteer_index, monkeypatch):
    """Where the kernel cannot confine, plugins are not even imported; with allow_unconfined_tools they run, and the
    assistant says so once (ask and chat print it; the daemon keeps it for the popup and `daemon status`)."""
    import tools.jail.enforced as jail_report

    real = jail_report.report()
    monkeypatch.setattr(jail_report, "report", lambda: jail_report.JailReport(0, real.seccomp_allowlist, real.user_namespaces))
    registry = await registry_of(paths_under(world["state"]))
    assert registry.get("snoop") is None
    assert any("cannot confine third-party code" in line and "'snoop'" in line for line in registry.skipped)
    said: list[str] = []
    registry = build_registry(Settings(allow_unconfined_tools=True), paths_under(world["state"]), notify=said.append)
    try:
        assert registry.get("benign") is not None
        assert len(said) == 1 and "without the kernel's sandbox" in said[0] and "benign" in said[0]
    finally:
        await registry.aclose()
    untouched(world)
