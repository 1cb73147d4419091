"""What a plugin may reach is the user's to grant, never the plugin's to take.

A plugin *asks* (its ``permissions``, computed inside its jail); the user grants with ``assistant tools grant NAME``
and revokes with ``assistant tools revoke NAME``. Grants are kept in ``permissions.json`` in the config folder,
which only the assistant's own commands write (no third-party code can: the folder is never grantable), bound to
the plugin's package and version: an update that asks for more is asked again. Some folders are never grantable,
whatever anyone types or writes into the file: the assistant's own folders, the home folder itself, the
interpreter and the code it runs, system folders, and the usual secret stores. MCP servers' ``folders`` follow
the same rule."""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

try:
    from tools.jail.importpath import TOOLS_DIR, interpreter_path
except ImportError:  # loaded by path in the MCP launcher (python -I), beside importpath.py
    from importpath import TOOLS_DIR, interpreter_path  # type: ignore[no-redef]  # the same names, by path in the jail

GRANTS_FILE = "permissions.json"

# Secret stores and credentials under the home folder (relative to it): never granted, nor any folder holding one.
_SECRETS = (
    ".ssh", ".gnupg", ".password-store", ".local/share/keyrings", ".local/share/kwalletd", ".kde/share/apps/kwallet",
    ".pki", ".aws", ".azure", ".config/gcloud", ".kube", ".docker", ".netrc", ".git-credentials", ".pypirc", ".npmrc",
    ".config/gh", ".config/hub", ".config/op", ".vault-token", ".terraform.d",
    ".mozilla", ".thunderbird", ".config/google-chrome", ".config/chromium", ".config/BraveSoftware",
    ".config/microsoft-edge", ".config/vivaldi", ".config/opera", ".var/app",
    "Library/Keychains", "Library/Application Support/Google/Chrome", "Library/Application Support/Firefox",
    "Library/Cookies", ".local/bin", ".config/autostart", ".config/systemd", ".bashrc", ".profile", ".zshrc",
)
_SYSTEM_TREES = ("/etc", "/usr", "/bin", "/sbin", "/lib", "/lib64", "/boot", "/proc", "/sys", "/dev", "/run")  # and beneath
_SYSTEM = ("/", "/bin", "/boot", "/dev", "/etc", "/lib", "/lib64", "/opt", "/proc", "/root", "/run", "/sbin", "/srv",
           "/sys", "/usr", "/var", "/home", "/Users", "/System", "/Library", "/Applications", "/private")


def _real(path: str | os.PathLike[str]) -> str:
    return os.path.realpath(os.path.abspath(os.path.expanduser(os.fspath(path))))


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


def protected(own: Sequence[str | os.PathLike[str]] = ()) -> list[tuple[str, str]]:
    """Folders no third-party code may be granted, each with why: ``own`` (the assistant's config, data, cache and
    log folders), the interpreter and the code it imports, and the secret stores under the home folder."""
    home = _real(Path.home())
    out = [(_real(p), "the assistant's own files") for p in own]
    code = {sys.prefix, sys.base_prefix, sys.exec_prefix, *interpreter_path(), TOOLS_DIR}
    out += [(_real(p), "code the assistant runs") for p in code]
    out += [(_real(os.path.join(home, s)), "a store of secrets or what runs at login") for s in _SECRETS]
    return out


def refusal(path: str | os.PathLike[str], own: Sequence[str | os.PathLike[str]] = ()) -> str | None:
    """Why ``path`` may never be granted, or ``None`` when it may be. A folder is refused when it is, lies inside,
    or holds one of :func:`protected`'s (granting a folder grants all beneath it); the home folder itself and
    system folders are refused whole, their subfolders by the same rule."""
    raw = os.fspath(path)
    if not raw.strip() or "\0" in raw:
        return "it is not a folder name"
    if not os.path.isabs(os.path.expanduser(raw)):
        return "it is not an absolute path"
    real = _real(raw)
    home = _real(Path.home())
    if real == home:
        return "it is your whole home folder"
    if real in _SYSTEM or (_inside(home, real)):
        return "it holds your home folder or the system's"
    if any(_inside(real, root) for root in _SYSTEM_TREES):
        return "it is a system folder"
    for root, why in protected(own):
        if _inside(real, root):
            return f"it is inside {root} ({why})"
        if _inside(root, real):
            return f"it holds {root} ({why})"
    return None


@dataclass
class Request:
    """What a plugin asks for (its ``permissions``)."""

    network: list[str] = field(default_factory=list)
    ports: list[int] = field(default_factory=list)
    files: list[str] = field(default_factory=list)

    @classmethod
    def of(cls, data: dict[str, Any]) -> Request:
        def strings(key: str) -> list[str]:
            value = data.get(key)
            return [str(v) for v in value if isinstance(v, (str, os.PathLike))][:64] if isinstance(value, list) else []

        ports = data.get("ports")
        return cls(network=strings("network"), files=[_real(f) if os.path.isabs(os.path.expanduser(f)) else f
                                                        for f in strings("files")],
                   ports=[int(p) for p in ports if isinstance(p, int) and 0 < p < 65536][:64] if isinstance(ports, list) else [])

    def port_item(self) -> str | None:
        return "ports " + ",".join(map(str, sorted(set(self.ports)))) if self.ports else None

    def items(self) -> list[str]:
        """Each thing asked for, as the user reads it and as a grant stores it (the ports go with the hosts)."""
        ports = self.port_item() if self.network else None
        return ([f"network {h}" for h in self.network] + ([ports] if ports else [])
                + [f"folder {f}" for f in self.files])


@dataclass
class Decision:
    """A plugin's request against the user's grant."""

    granted: Request
    pending: list[str]  # asked for, not (yet) granted
    refused: list[tuple[str, str]]  # asked for and never grantable: (item, why)
    version_changed: bool = False  # the grant was made for another version (and it now asks for more)


class Grants:
    """``permissions.json``: per plugin (its entry point name), the package and version it was granted for and
    the items granted. Read fresh each time; written atomically, private to the user."""

    def __init__(self, config_dir: Path, own: Sequence[Path] = ()) -> None:
        self.path = Path(config_dir) / GRANTS_FILE
        self.own = [config_dir, *own]

    def load(self) -> dict[str, dict[str, Any]]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        plugins = data.get("plugins") if isinstance(data, dict) else None
        return {k: v for k, v in plugins.items() if isinstance(v, dict)} if isinstance(plugins, dict) else {}

    def decide(self, name: str, package: str, version: str, request: Request) -> Decision:
        grant = self.load().get(name) or {}
        items = set(grant.get("items") or []) if grant.get("package") == package else set()
        granted = Request()
        pending: list[str] = []
        refused: list[tuple[str, str]] = []
        ports = request.port_item()
        if request.network and ports is not None and ports not in items:  # the ports go with the hosts
            pending += [f"network {h}" for h in request.network] + [ports]
        else:
            for host in request.network:
                (granted.network.append(host) if f"network {host}" in items else pending.append(f"network {host}"))
            granted.ports = list(request.ports) if granted.network else []
        for folder in request.files:
            why = refusal(folder, self.own)
            if why is not None:
                refused.append((f"folder {folder}", why))
            elif f"folder {folder}" in items:
                granted.files.append(folder)
            else:
                pending.append(f"folder {folder}")
        changed = bool(grant) and grant.get("version") != version and bool(pending)
        return Decision(granted, pending, refused, changed)

    def grant(self, name: str, package: str, version: str, items: list[str]) -> None:
        """Grant ``items`` (only grantable ones reach here) to plugin ``name`` of ``package`` at ``version``."""
        for item in items:
            kind, _, value = item.partition(" ")
            if kind == "folder" and (why := refusal(value, self.own)) is not None:
                raise ValueError(f"{value} can never be granted: {why}")
        plugins = self.load()
        old = plugins.get(name) or {}
        kept = set(old.get("items") or []) if old.get("package") == package else set()
        plugins[name] = {"package": package, "version": version, "items": sorted(kept | set(items))}
        self._write(plugins)

    def revoke(self, name: str) -> bool:
        plugins = self.load()
        if plugins.pop(name, None) is None:
            return False
        self._write(plugins)
        return True

    def _write(self, plugins: dict[str, Any]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        tmp = self.path.with_suffix(".json.tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump({"plugins": plugins}, f, ensure_ascii=False, indent=2)
            f.write("\n")
        tmp.replace(self.path)
