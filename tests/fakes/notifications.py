"""A notification server on a real D-Bus session bus: org.freedesktop.Notifications as the spec defines it (Notify,
GetCapabilities, GetServerInformation, CloseNotification, NotificationClosed), recording each Notify call as one
JSON line. It stands in for dunst or a desktop's own server, which cannot run here; the bus (dbus-daemon) and the
protocol are the real ones. Run: python notifications.py ADDRESS LOGFILE [--slow SECONDS] [--plain] [--press TITLE]
(--slow: each Notify answered that late, and recorded only then: a server the daemon may be killed while waiting on;
--plain: a server without the body-markup capability, which shows a body as it is; --press: the user presses the
action of that title (or the first of several, "A|B") on each notification that has one, a moment after it is
shown: ActionInvoked; --show: each is drawn on $DISPLAY as a desktop's server draws it, a bubble at the top right
with its icon, summary, body and a button an action, which a click presses; each drawn bubble's buttons are printed
as one JSON line, {"shown": ID, "buttons": {TITLE: [X, Y]}}, for a script's xdotool)."""

from __future__ import annotations

import asyncio
import json
import sys
import time

from dbus_fast import BusType  # noqa: F401 - the address comes from the command line
from dbus_fast.aio import MessageBus
from dbus_fast.service import ServiceInterface, method, signal


class Notifications(ServiceInterface):
    def __init__(self, log: str, slow: float = 0.0, plain: bool = False, press: str = "", show: bool = False) -> None:
        super().__init__("org.freedesktop.Notifications")
        self.log, self.next_id, self.slow, self.plain, self.press = log, 1, slow, plain, press
        self.bubbles = Bubbles(self) if show else None

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
        if self.bubbles is not None:
            pairs = list(zip(actions[0::2], actions[1::2], strict=False))
            self.bubbles.show(self.next_id - 1, app_icon, summary, body, pairs)
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


class Bubbles:
    """Notifications drawn with Tk, one borderless window each at the top right of the screen, the newest first."""

    def __init__(self, server: Notifications) -> None:
        import tkinter as tk

        self.tk, self.server = tk, server
        self.root = tk.Tk()
        self.root.withdraw()
        self.images: list = []
        self.open: dict[int, object] = {}

    async def pump(self) -> None:
        while True:
            self.root.update()
            await asyncio.sleep(0.03)

    def show(self, nid: int, icon: str, summary: str, body: str, actions: list[tuple[str, str]]) -> None:
        tk = self.tk
        bubble = tk.Toplevel(self.root, bg="#2e3440", padx=12, pady=10, highlightthickness=1,
                             highlightbackground="#4c566a")
        bubble.overrideredirect(True)
        top = tk.Frame(bubble, bg="#2e3440")
        top.pack(fill="x")
        path = icon.removeprefix("file://")
        if path:
            try:
                image = tk.PhotoImage(file=path)
                image = image.subsample(max(1, image.width() // 48))
                self.images.append(image)
                tk.Label(top, image=image, bg="#2e3440").pack(side="left", padx=(0, 10), anchor="n")
            except tk.TclError:
                pass
        words = tk.Frame(top, bg="#2e3440")
        words.pack(side="left", fill="x")
        tk.Label(words, text=summary, fg="#eceff4", bg="#2e3440", font=("DejaVu Sans", 11, "bold"),
                 anchor="w").pack(fill="x")
        tk.Label(words, text=body, fg="#d8dee9", bg="#2e3440", font=("DejaVu Sans", 10), wraplength=260,
                 justify="left", anchor="w").pack(fill="x")
        row = tk.Frame(bubble, bg="#2e3440")
        row.pack(fill="x", pady=(8, 0))
        buttons = {}
        for key, title in actions:
            if key == "default" or not title:
                continue
            b = tk.Button(row, text=title, command=lambda k=key: self.press(nid, k), relief="flat", bg="#434c5e",
                          fg="#eceff4", activebackground="#5e81ac", font=("DejaVu Sans", 10), padx=10)
            b.pack(side="left", padx=(0, 6))
            buttons[title] = b
        bubble.update_idletasks()
        x = bubble.winfo_screenwidth() - bubble.winfo_reqwidth() - 16
        y = 16 + sum(b.winfo_reqheight() + 8 for b in self.open.values())  # type: ignore[attr-defined]
        bubble.geometry(f"+{x}+{y}")
        bubble.update()
        self.open[nid] = bubble
        where = {t: [b.winfo_rootx() + b.winfo_width() // 2, b.winfo_rooty() + b.winfo_height() // 2]
                 for t, b in buttons.items()}
        print(json.dumps({"shown": nid, "buttons": where}, ensure_ascii=False), flush=True)

    def press(self, nid: int, key: str) -> None:
        self.server.ActionInvoked(nid, key)
        bubble = self.open.pop(nid, None)
        if bubble is not None:
            bubble.destroy()  # type: ignore[attr-defined]


async def main(address: str, log: str, slow: float = 0.0, plain: bool = False, press: str = "",
               show: bool = False) -> None:
    bus = await MessageBus(bus_address=address).connect()
    server = Notifications(log, slow, plain, press, show)
    bus.export("/org/freedesktop/Notifications", server)
    await bus.request_name("org.freedesktop.Notifications")
    print("ready", flush=True)
    if server.bubbles is not None:
        await server.bubbles.pump()
    await asyncio.Event().wait()


if __name__ == "__main__":
    rest = sys.argv[3:]
    asyncio.run(main(sys.argv[1], sys.argv[2], float(rest[rest.index("--slow") + 1]) if "--slow" in rest else 0.0,
                     "--plain" in rest, rest[rest.index("--press") + 1] if "--press" in rest else "", "--show" in rest))
