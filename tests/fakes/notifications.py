"""A notification server on a real D-Bus session bus: org.freedesktop.Notifications as the spec defines it (Notify,
GetCapabilities, GetServerInformation, CloseNotification, NotificationClosed), recording each Notify call as one
JSON line. It stands in for dunst or a desktop's own server, which cannot run here; the bus (dbus-daemon) and the
protocol are the real ones. Run: python notifications.py ADDRESS LOGFILE [--slow SECONDS] [--plain] [--press TITLE]
(--slow: each Notify answered that late, and recorded only then: a server the daemon may be killed while waiting on;
--plain: a server without the body-markup capability, which shows a body as it is; --press: the user presses the
action of that title (or the first of several, "A|B") on each notification that has one, a moment after it is
shown: ActionInvoked)."""

from __future__ import annotations

import asyncio
import json
import sys
import time

from dbus_fast import BusType  # noqa: F401 - the address comes from the command line
from dbus_fast.aio import MessageBus
from dbus_fast.service import ServiceInterface, method, signal


class Notifications(ServiceInterface):
    def __init__(self, log: str, slow: float = 0.0, plain: bool = False, press: str = "") -> None:
        super().__init__("org.freedesktop.Notifications")
        self.log, self.next_id, self.slow, self.plain, self.press = log, 1, slow, plain, press

    @method()
    async def Notify(self, app_name: "s", replaces_id: "u", app_icon: "s", summary: "s", body: "s",  # noqa: F821
                     actions: "as", hints: "a{sv}", expire_timeout: "i") -> "u":  # noqa: F821,F722
        if self.slow:  # a server that takes its time to answer (the daemon may be killed meanwhile)
            await asyncio.sleep(self.slow)
        with open(self.log, "a", encoding="utf-8") as f:
            f.write(json.dumps({"app": app_name, "icon": app_icon, "summary": summary, "body": body,
                                "actions": actions[1::2], "at": time.time()}, ensure_ascii=False) + "\n")
        self.next_id += 1
        keys = dict(zip(actions[1::2], actions[0::2], strict=False))  # title -> key, as the spec pairs them
        pressed = next((keys[t] for t in self.press.split("|") if t in keys), None) if self.press else None
        if pressed is not None:
            asyncio.get_running_loop().call_later(0.2, self.ActionInvoked, self.next_id - 1, pressed)
        return self.next_id - 1

    @method()
    def GetCapabilities(self) -> "as":  # noqa: F821,F722
        return ["body", "actions"] if self.plain else ["body", "body-markup", "actions"]

    @method()
    def GetServerInformation(self) -> "ssss":  # noqa: F821
        return ["test-notifications", "assistant tests", "1.0", "1.2"]

    @method()
    def CloseNotification(self, id: "u"):  # noqa: F821
        self.NotificationClosed(id, 3)

    @signal()
    def NotificationClosed(self, id: "u", reason: "u") -> "uu":  # noqa: F821
        return [id, reason]

    @signal()
    def ActionInvoked(self, id: "u", action_key: "s") -> "us":  # noqa: F821
        return [id, action_key]


async def main(address: str, log: str, slow: float = 0.0, plain: bool = False, press: str = "") -> None:
    bus = await MessageBus(bus_address=address).connect()
    bus.export("/org/freedesktop/Notifications", Notifications(log, slow, plain, press))
    await bus.request_name("org.freedesktop.Notifications")
    print("ready", flush=True)
    await asyncio.Event().wait()


if __name__ == "__main__":
    rest = sys.argv[3:]
    asyncio.run(main(sys.argv[1], sys.argv[2], float(rest[rest.index("--slow") + 1]) if "--slow" in rest else 0.0,
                     "--plain" in rest, rest[rest.index("--press") + 1] if "--press" in rest else ""))
