"""The thin client of the daemon: standard library only, so that `assistant ask` through a running
daemon starts in a few tens of milliseconds (no model client, no pydantic)."""

from __future__ import annotations

import http.client
import json
import os
import socket
import time
from pathlib import Path
from typing import Any, Callable, Iterator

from assistant.paths import ENDPOINT_FILE

from assistant.errors import AssistantError, from_failure
from assistant.wire import ASK_AGAIN, ENDED_EARLY, Follower, TurnOutcome, TurnRequest, events

TOKEN_FILE = "daemon.token"
RECONNECT_TRIES, RECONNECT_PAUSE = 12, 0.25  # how long a restarting daemon is waited for (about 3 s)


class DaemonUnavailable(Exception):
    pass


class DaemonError(Exception):
    def __init__(self, status: int, message: str, details: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.details = details or {}  # the whole error body (a 409 names what differs: "differs")

    def said(self) -> AssistantError | None:
        """The refusal as the user's own error when the daemon said it in their words (a per-turn setting's value it
        refused: the line and the exit code this process would give), else None."""
        if not isinstance(self.details.get("exit_code"), int):
            return None
        return from_failure({"message": str(self), "hint": self.details.get("hint", ""),
                             "exit_code": self.details["exit_code"]})


class _UnixConnection(http.client.HTTPConnection):
    def __init__(self, path: str, timeout: float) -> None:
        super().__init__("localhost", timeout=timeout)
        self.unix_path = path

    def connect(self) -> None:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(self.timeout)
        sock.connect(self.unix_path)
        self.sock = sock


class Client:
    def __init__(self, run_dir: Path, timeout: float = 600.0) -> None:
        self.run_dir = run_dir  # where a restarted daemon writes its new endpoint and token
        try:
            self.endpoint = json.loads((run_dir / ENDPOINT_FILE).read_text())
            self.token = (run_dir / TOKEN_FILE).read_text().strip()
        except (OSError, ValueError):
            raise DaemonUnavailable("the daemon is not running") from None
        self.timeout = timeout

    def _connection(self, timeout: float | None = None) -> http.client.HTTPConnection:
        t = timeout or self.timeout
        if self.endpoint.get("transport") == "unix":
            return _UnixConnection(self.endpoint["path"], t)
        return http.client.HTTPConnection("127.0.0.1", int(self.endpoint["port"]), timeout=t)

    def _send(self, method: str, path: str, body: Any = None, timeout: float | None = None) -> http.client.HTTPResponse:
        return self._open(method, path, body, timeout)[1]

    def _open(self, method: str, path: str, body: Any = None,
              timeout: float | None = None) -> tuple[http.client.HTTPConnection, http.client.HTTPResponse]:
        conn = self._connection(timeout)
        headers = {"Authorization": f"Bearer {self.token}", "Host": "localhost"}
        data = None
        if body is not None:
            data = json.dumps(body, ensure_ascii=False).encode()
            headers["Content-Type"] = "application/json"
        try:
            conn.request(method, path, body=data, headers=headers)
            resp = conn.getresponse()
        except (OSError, http.client.HTTPException) as e:
            raise DaemonUnavailable(f"the daemon does not answer ({e})") from None
        if resp.status >= 400:
            text = resp.read().decode(errors="replace")
            try:
                details = json.loads(text)
                message = details.get("error", text)
            except (ValueError, AttributeError):
                details, message = {}, text
            raise DaemonError(resp.status, message, details if isinstance(details, dict) else {})
        return conn, resp

    def get(self, path: str, timeout: float = 5.0) -> Any:
        return json.loads(self._send("GET", path, timeout=timeout).read())

    def post(self, path: str, body: Any, timeout: float = 5.0) -> Any:
        return json.loads(self._send("POST", path, body, timeout=timeout).read())

    def ask(self, question: str, session_id: str | None = None, **request: Any) -> "EventStream":
        """The turn's events as they happen; ``request`` is the rest of a :class:`assistant.wire.TurnRequest` (a
        key that is None is left out: the daemon's default)."""
        body = {"question": question, "session_id": session_id, **request}
        return EventStream(*self._open("POST", "/v1/ask", {k: v for k, v in body.items() if v is not None}))


class EventStream:
    """One answer's events, read line by line; ``abort`` (from any thread) ends a read that is waiting."""

    def __init__(self, conn: http.client.HTTPConnection, resp: http.client.HTTPResponse) -> None:
        self.conn = conn
        self.resp = resp

    def __iter__(self) -> Iterator[dict[str, Any]]:
        try:
            yield from events(self.resp)
        except (OSError, http.client.HTTPException, ValueError) as e:
            raise DaemonUnavailable(f"lost the daemon ({e})") from None
        finally:
            self.resp.close()

    def abort(self) -> None:
        sock = self.conn.sock
        if sock is not None:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


class Turn:
    """One question asked of the daemon, the one way every client asks it (``ask``, the chat, the popup): sent with
    :meth:`send`, to the daemon found again when it restarted (a new socket and a new token: it is looked for about
    3 s, and ``reconnected`` says it was); its events yielded as they come, each then followed (a ``turn_failed`` is
    raised as its error once the caller has seen it, a stream that breaks as one that ended early); :meth:`outcome` is what it came to, shaped as the in-process
    result. Blocking: an async caller runs each step in a thread, and :meth:`abort` (from any thread) ends a read
    that waits."""

    def __init__(self, client: Client, request: TurnRequest) -> None:
        self.client = client
        self.request = request
        self.reconnected = False
        self.follower = Follower(request.get("session_id"))
        self._stream: Any = None

    def send(self) -> None:
        """Ask; :class:`DaemonError` when the daemon refuses (a 409 names in ``details["differs"]`` the settings it
        cannot take on), :class:`DaemonUnavailable` when there is no daemon to ask."""
        try:
            self._stream = self.client.ask(**self.request)
        except (DaemonUnavailable, DaemonError) as e:  # gone, or back with a new token: found again if it can be
            if isinstance(e, DaemonError) and e.status != 401:
                raise
            self._stream = self._again()

    def _again(self) -> Any:
        for _ in range(RECONNECT_TRIES):
            fresh = connect(self.client.run_dir)
            if fresh is not None:
                self.client, self.reconnected = fresh, True
                return fresh.ask(**self.request)
            time.sleep(RECONNECT_PAUSE)
        raise DaemonUnavailable("the daemon is not running")

    def __iter__(self) -> Iterator[dict[str, Any]]:
        if self._stream is None:
            self.send()
        try:
            for event in self._stream:
                yield event
                self.follower.see(event)
        except DaemonUnavailable:  # the daemon took the question, then the stream broke: as one that ended early
            raise AssistantError(ENDED_EARLY, ASK_AGAIN) from None

    def outcome(self) -> TurnOutcome:
        return self.follower.outcome()

    def abort(self) -> None:
        if self._stream is not None and hasattr(self._stream, "abort"):
            self._stream.abort()


def answer_here_after(refusal: DaemonError, notice: Callable[[str], None] | None, instead: str,
                      can: bool = True) -> None:
    """What follows the daemon's refusal of a question, the same for every front end: a value it refused is said as
    this process would say it (exit 2); any other refusal than "other settings" (409), or one where this process
    cannot answer (``can``), is one line; else this process answers, and says so once (not when only a broken
    config.toml differs: the answer here says that itself)."""
    if (said := refusal.said()) is not None:
        raise said from None
    if refusal.status != 409 or not can:
        raise AssistantError(f"the daemon refused the question: {refusal}.", "Try --no-daemon.") from None
    if notice is not None and refusal.details.get("differs") != ["config"]:
        notice(f"{refusal}; {instead}")


def connect(run_dir: Path) -> Client | None:
    """A client of the running daemon, or None when there is none (cheap: files and one connect)."""
    try:
        client = Client(run_dir)
    except DaemonUnavailable:
        return None
    endpoint = client.endpoint
    if endpoint.get("transport") == "unix" and not os.path.exists(endpoint.get("path", "")):
        return None
    try:
        client.get("/v1/health", timeout=2)
    except (DaemonUnavailable, DaemonError):
        return None
    return client
