"""Reminders and timers set in words, kept in the user's store, fired by the daemon: reading the request
(:mod:`.reading`) into what the tool is asked (:mod:`.args`), the table (:mod:`.book`) and the tool (:mod:`.tool`)."""

from tools.reminders.args import RemindersArgs
from tools.reminders.book import Book, Reminder
from tools.reminders.tool import Reminders, RemindersConfig

__all__ = ["Book", "Reminder", "Reminders", "RemindersArgs", "RemindersConfig"]
