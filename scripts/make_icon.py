"""Writes the app's icon, assistant/icon.png (the notifications' and the popup's): a speech bubble on a
round blue tile, drawn here so the file is reproducible with no image library. Run: python scripts/make_icon.py"""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

SIZE = 128
OUT = Path(__file__).resolve().parent.parent / "assistant" / "icon.png"


def inside_rounded(x: float, y: float, x0: float, y0: float, x1: float, y1: float, r: float) -> bool:
    cx = min(max(x, x0 + r), x1 - r)
    cy = min(max(y, y0 + r), y1 - r)
    return (x - cx) ** 2 + (y - cy) ** 2 <= r * r and x0 <= x <= x1 and y0 <= y <= y1


def pixel(x: float, y: float) -> tuple[int, int, int, int]:
    if not inside_rounded(x, y, 4, 4, SIZE - 4, SIZE - 4, 28):
        return (0, 0, 0, 0)
    bubble = inside_rounded(x, y, 26, 30, 102, 82, 16)
    tail = 40 <= x <= 62 and 80 <= y <= 100 and (x - 40) >= (y - 80) * 1.1  # the bubble's tail, down and left
    if bubble or tail:
        dots = any((x - cx) ** 2 + (y - 56) ** 2 <= 36 for cx in (46, 64, 82))
        return (37, 99, 235, 255) if dots else (255, 255, 255, 255)
    return (37, 99, 235, 255)


def png(width: int, height: int) -> bytes:
    rows = b"".join(b"\x00" + b"".join(bytes(pixel(x + 0.5, y + 0.5)) for x in range(width)) for y in range(height))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows, 9)) + chunk(b"IEND", b"")


if __name__ == "__main__":
    OUT.write_bytes(png(SIZE, SIZE))
    print(f"wrote {OUT} ({OUT.stat().st_size} bytes)")
