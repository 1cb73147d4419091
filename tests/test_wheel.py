"""``tools`` and ``prompts`` must work from an installed wheel, far from the checkout."""

from __future__ import annotations

import json
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

import pytest
from conftest import cli_env
from fake_ollama import Script, tool_call

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.slow
def test_wheel_installs_and_answers_outside_the_checkout(tmp_path, home, fake):
    dist = tmp_path / "dist"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(dist), str(ROOT)],
                   check=True, capture_output=True, timeout=300)
    wheel = next(dist.glob("assistant-*.whl"))
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=False)
    py = env_dir / "bin" / "python"
    # The wheel alone, by this pip; its dependencies are this environment's, seen through a path file (the .pth
    # files there, this checkout's editable install among them, are not run: only the folder is on the path)
    site = next((env_dir / "lib").glob("python*/site-packages"))
    (site / "dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    subprocess.run([sys.executable, "-m", "pip", "--python", str(py), "install", "--no-deps", "-q", str(wheel)],
                   check=True, capture_output=True, timeout=600)
    requires = subprocess.run([str(py), "-c", "import importlib.metadata as m; print(m.requires('assistant'))"],
                              capture_output=True, text=True, check=True).stdout
    assert all(f"'{dep}" in requires for dep in ("ollama", "aiohttp", "pydantic", "simpleeval", "platformdirs"))

    outside = tmp_path / "elsewhere"
    outside.mkdir()
    where = subprocess.run([str(py), "-c", "import tools, prompts; print(tools.__file__); print(prompts.__file__)"],
                           cwd=outside, capture_output=True, text=True, check=True, env=cli_env(home))
    assert all(str(env_dir) in line for line in where.stdout.split())
    icon = subprocess.run([str(py), "-c", "from assistant.icon import ICON; print(ICON.is_file(), ICON)"], cwd=outside,
                          capture_output=True, text=True, check=True, env=cli_env(home)).stdout.split()
    assert icon[0] == "True" and str(env_dir) in icon[1]  # the app's icon ships with it (its notifications, the popup)

    fake.handler = Script(router={"route": "calculator"}, executor=tool_call("calculator", expression="pi*3^2"),
                          validator={"verdict": "PASS", "reason": "ok"}, responder="About 28.27.")
    p = subprocess.run([str(env_dir / "bin" / "assistant"), "ask", "--json", "How much floor does a round rug of radius 3 cover?"],
                       cwd=outside, capture_output=True, text=True, timeout=60, env=cli_env(home, fake))
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert out["ok"] and out["answer"] == "About 28.27." and out["model_calls"] == 2
    assert "If the user's last message needs one of the tools" in fake.requests[0]["messages"][0]["content"]  # the prompt file was found
