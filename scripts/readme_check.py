"""Run the README's own Test block, as a new user would: a fresh virtual environment, the block's commands in order,
nothing installed by hand. CI runs it before its own run with every extra (.ci/run), so a test that needs an extra
the README does not install must skip and say why, or this fails.

    python scripts/readme_check.py            # the whole block; prints each command and pytest's last line
    python scripts/readme_check.py --keep DIR # the environment kept in DIR (to look into a failure)
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_block(readme: str) -> list[str]:
    """The commands of the first fenced block under '## Test' (comments dropped)."""
    section = readme.split("\n## Test", 1)[1]
    block = re.search(r"```[a-z]*\n(.*?)```", section, re.DOTALL)
    if block is None:
        raise SystemExit("the README's Test section has no code block")
    commands = []
    for line in block.group(1).splitlines():
        command = line.split(" #", 1)[0].strip()
        if command and not command.startswith("#"):
            commands.append(command)
    return commands


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--keep", type=Path, help="make the environment here and keep it")
    args = parser.parse_args()
    commands = test_block((ROOT / "README.md").read_text())
    with tempfile.TemporaryDirectory(prefix="readme-check-") as scratch:
        where = args.keep or Path(scratch)
        venv = where / "venv"
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        # the environment a new user's shell has after `python3 -m venv` and `activate`, and nothing else of ours
        env = {k: v for k, v in os.environ.items() if not k.startswith(("ASSISTANT_", "VIRTUAL_ENV", "PYTHON"))}
        env.update(VIRTUAL_ENV=str(venv), PATH=f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}",
                   HOME=str(where / "home"))
        (where / "home").mkdir(exist_ok=True)
        for command in commands:
            print(f"$ {command}", flush=True)
            started = time.monotonic()
            done = subprocess.run(shlex.split(command), cwd=ROOT, env=env, capture_output=True, text=True)
            tail = [line for line in (done.stdout + done.stderr).splitlines() if line.strip()][-1:] or [""]
            print(f"  exit {done.returncode} in {time.monotonic() - started:.0f} s: {tail[0]}", flush=True)
            if done.returncode != 0:
                print(done.stdout[-6000:] + done.stderr[-3000:])
                print(f"README's test block: FAILED at `{command}`")
                return 1
    print(f"README's test block: passed ({len(commands)} commands in a fresh environment)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
