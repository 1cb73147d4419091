"""Reminders and timers set in words, kept in the user's store, fired by the daemon: reading the request
(:mod:`.reading`), the table (:mod:`.book`) and the tool (:mod:`.tool`)."""

from tools.reminders.book import Book, Reminder
from tools.reminders.tool import Reminders, RemindersArgs, RemindersConfig

__all__ = ["Book", "Reminder", "Reminders", "RemindersArgs", "RemindersConfig"]
