"""Where state lives: platformdirs, or everything under ``ASSISTANT_HOME`` when set."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

APP_NAME = "assistant"
HOME_ENV = "ASSISTANT_HOME"


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
    def run_dir(self) -> Path:
        """The daemon's endpoint, token and pid files (private to the user)."""
        return self.data_dir / "run"

    def ensure(self) -> None:
        for d in (self.config_dir, self.data_dir, self.cache_dir, self.log_dir):
            d.mkdir(parents=True, exist_ok=True)


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
