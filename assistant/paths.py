"""Where state lives: platformdirs, or everything under ``ASSISTANT_HOME`` when set."""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path

APP_NAME = "assistant"
HOME_ENV = "ASSISTANT_HOME"
ENDPOINT_FILE = "daemon.json"  # in run_dir: where a running daemon says how to reach it


@dataclass(frozen=True)
class Paths:
    config_dir: Path
    data_dir: Path
    cache_dir: Path
    log_dir: Path

    @property
    def config_file(self) -> Path:
        return self.config_dir / "config.toml"

    @property
    def database(self) -> Path:
        return self.data_dir / "assistant.db"

    @property
    def own(self) -> list[Path]:
        """The assistant's own folders: never grantable to a plugin or an MCP server (:mod:`tools.jail.grants`)."""
        return [self.config_dir, self.data_dir, self.cache_dir, self.log_dir]

    @property
    def run_dir(self) -> Path:
        """The daemon's endpoint, token and pid files (private to the user)."""
        return self.data_dir / "run"

    @property
    def daemon_may_run(self) -> bool:
        """The daemon wrote its endpoint (it runs, or was killed): worth asking it (:func:`client.connect`)."""
        return (self.run_dir / ENDPOINT_FILE).exists()

    def ensure(self) -> None:
        """Create the folders, private to the user (0700), and make private what an older version left readable by
        others (files 0600); says so once, on stderr, when it changed anything."""
        for d in (self.config_dir, self.data_dir, self.cache_dir, self.log_dir):
            try:
                d.mkdir(parents=True, exist_ok=True, mode=0o700)
            except OSError as e:
                from assistant.errors import StoreError

                raise StoreError(f"{d} cannot be created ({e.strerror or e}).",
                                 "Set ASSISTANT_HOME to a folder you can write, or make its parent writable.") from None
        fixed = self.make_private()
        if fixed:
            import sys

            print(f"assistant: made {len(fixed)} file{'s' if len(fixed) != 1 else ''} and folders of yours private "
                  f"(other users could read them): {', '.join(fixed[:3])}{' …' if len(fixed) > 3 else ''}",
                  file=sys.stderr)

    def make_private(self) -> list[str]:
        """Folders 0700, the files directly in them 0600, where they were open to others; what was changed."""
        if os.name != "posix":
            return []
        changed = []
        for d in (self.config_dir, self.data_dir, self.cache_dir, self.log_dir, self.run_dir):
            try:
                entries = [d, *d.iterdir()] if d.is_dir() else []
            except OSError:
                continue
            for p in entries:
                try:
                    st = p.lstat()
                except OSError:
                    continue
                if stat.S_ISLNK(st.st_mode) or not st.st_mode & 0o077:
                    continue
                try:
                    os.chmod(p, 0o700 if stat.S_ISDIR(st.st_mode) else 0o600)
                    changed.append(str(p))
                except OSError:
                    continue
        return changed


def resolve_paths() -> Paths:
    """One environment variable moves all state, so tests and portable installs stay self-contained."""
    home = os.environ.get(HOME_ENV)
    if home:
        root = Path(home).expanduser()
        return Paths(root / "config", root / "data", root / "cache", root / "log")
    import platformdirs

    return Paths(
        Path(platformdirs.user_config_dir(APP_NAME)),
        Path(platformdirs.user_data_dir(APP_NAME)),
        Path(platformdirs.user_cache_dir(APP_NAME)),
        Path(platformdirs.user_log_dir(APP_NAME)),
    )
