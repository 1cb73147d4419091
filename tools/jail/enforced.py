"""What the kernel enforces on this machine for tools, plugins and MCP servers, in words, for ``assistant doctor``
and ``assistant tools``; and whether a third-party tool may run here (it needs the wall, or the user's consent)."""

from __future__ import annotations

import sys
from dataclasses import dataclass

from tools.jail import landlock, namespaces, seccomp


@dataclass
class JailReport:
    landlock_abi: int
    seccomp_allowlist: bool  # libseccomp through pyseccomp: the allow-list; else the built-in deny-list filter
    user_namespaces: bool

    @property
    def confined(self) -> bool:
        """Files and syscalls are both held by the kernel."""
        return self.landlock_abi >= 1 and self.seccomp_allowlist

    def lines(self) -> list[str]:
        abi = self.landlock_abi
        return [
            f"files: {'Landlock ABI ' + str(abi) + ' (read: code and libraries; write: the tool' + chr(39) + 's folders)' if abi else 'NOT enforced (no Landlock in this kernel)'}",
            f"TCP ports: {'Landlock' if abi >= 4 else 'NOT enforced by the kernel (Landlock ABI 4 needed); seccomp still refuses sockets to tools without network'}",
            f"abstract Unix sockets and signals: {'scoped by Landlock' if abi >= 6 else 'NOT scoped (Landlock ABI 6 needed)'}",
            f"syscalls: {'seccomp allow-list (libseccomp)' if self.seccomp_allowlist else 'seccomp deny-list only (libseccomp or pyseccomp missing)'}",
            f"network namespace for tools without network: {'yes' if self.user_namespaces else 'no (unprivileged user namespaces are off)'}",
        ]


def report() -> JailReport:
    if not sys.platform.startswith("linux"):
        return JailReport(0, False, False)
    return JailReport(landlock.abi(), seccomp.allowlist_available(), namespaces.available())
