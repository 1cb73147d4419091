"""The app's own icon, drawn by scripts/make_icon.py: its desktop notifications' and the popup's."""

from __future__ import annotations

from pathlib import Path

ICON = Path(__file__).resolve().with_name("icon.png")
