"""Reminders and timers set in words, kept in the user's store, fired by the daemon: reading the request
(:mod:`.reading`: to set one; :mod:`.listing`, :mod:`.cancelling`, :mod:`.changes`: to list, cancel or move them;
:mod:`.follow_ups`: words that act on the one just set) with the time it says (:mod:`.due`, :mod:`.times`,
:mod:`.repeats`) into what the tool is asked (:mod:`.args`), the table (:mod:`.book`) and the tool (:mod:`.tool`)."""

from tools.reminders.args import RemindersArgs
from tools.reminders.book import Book, Reminder
from tools.reminders.tool import Reminders, RemindersConfig

__all__ = ["Book", "Reminder", "Reminders", "RemindersArgs", "RemindersConfig"]
