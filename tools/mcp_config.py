"""How an MCP server is configured (one ``[mcp_servers.NAME]`` table): light, for the settings to import without
the MCP machinery (:mod:`tools.mcp_servers`)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class McpServerConfig(BaseModel):
    """One ``[mcp_servers.NAME]`` table of ``config.toml``."""

    model_config = ConfigDict(extra="forbid")

    command: str = Field(min_length=1, description="the program that starts the server, e.g. 'uvx' or 'python'")
    args: list[str] = Field(default_factory=list, description="its arguments, e.g. ['mcp-server-time']")
    env: dict[str, str] = Field(default_factory=dict, description="environment variables for it (beyond PATH, HOME and the like)")
    cwd: str | None = Field(None, description="its working directory")
    network: bool = Field(False, description="whether it may open network connections (Linux: enforced by the kernel)")
    folders: list[str] = Field(default_factory=list, description="folders it may read and write (Linux: enforced by "
                               "Landlock; nothing else of yours is readable)")
    timeout: float | None = Field(None, gt=0, description="seconds one call may take (default: tool_timeout)")
    memory_mb: int | None = Field(None, ge=0, description="address-space limit in MB (default: tool_memory_mb; 0: none; "
                                  "servers on Node.js need 0 or several GB)")
    cpu_seconds: int | None = Field(None, ge=0, description="CPU seconds it may use before it is restarted (default: ten "
                                    "times tool_cpu_seconds, as it lives long; 0: no limit)")
    tools: list[str] | None = Field(None, description="only these of its tools (default: all)")
    processes: int = Field(128, ge=1, le=4096, description="most processes and threads it may run at once (Linux: "
                           "RLIMIT_NPROC in its own user namespace); its whole tree dies with it")
