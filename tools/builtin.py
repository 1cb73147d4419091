"""The tools that come with the assistant, in the order the registry lists them. A tool is its module and one
line here: it builds itself from the settings (``Tool.from_settings``), says what ``doctor`` should check
(``Tool.doctor``) and which claims of an answer it can refute or derive (``Tool.wrong_claims``, ``Tool.derives``).
Tools from other packages come in through the ``assistant.tools`` entry point group instead."""

from __future__ import annotations

from tools.base import Tool
from tools.calculator import Calculator
from tools.clock import Clock
from tools.reminders import Reminders
from tools.units import Units
from tools.weather import Weather

BUILTIN: tuple[type[Tool], ...] = (Calculator, Weather, Units, Clock, Reminders)
