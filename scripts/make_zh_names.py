"""Regenerate tools/zh_names.json: Chinese names of world cities and countries from the Unicode CLDR (through
Babel: the exemplar city of every time zone, and every territory), for the offline gazetteer.

    pip install babel && python scripts/make_zh_names.py

CLDR data is under the Unicode License (https://www.unicode.org/license.txt); Babel is only needed here,
never at run time."""

from __future__ import annotations

import json
import re
import zoneinfo
from pathlib import Path

from babel import Locale
from babel.dates import get_timezone_location

OUT = Path(__file__).resolve().parents[1] / "tools" / "zh_names.json"
CJK = re.compile(r"[\u3400-\u9fff]")


def main() -> None:
    cities: dict[str, list[str]] = {}
    for tz in sorted(zoneinfo.available_timezones()):
        if "/" not in tz or tz.startswith(("Etc/", "SystemV/", "US/", "Canada/", "Brazil/", "Chile/", "Mexico/")):
            continue
        try:
            zh = get_timezone_location(tz, locale="zh", return_city=True)
            en = get_timezone_location(tz, locale="en", return_city=True)
        except (LookupError, ValueError):
            continue
        if CJK.search(zh) and en:
            cities[tz] = [zh, en]
    zh_locale = Locale("zh")
    countries = {iso: name for iso, name in zh_locale.territories.items()
                 if len(iso) == 2 and iso.isalpha() and CJK.search(name)}
    def block(items: dict) -> str:
        return ",\n".join(f"  {json.dumps(k)}: {json.dumps(v, ensure_ascii=False)}" for k, v in sorted(items.items()))
    OUT.write_text('{"source": "Unicode CLDR via Babel",\n"cities": {\n' + block(cities) + '\n},\n"countries": {\n'
                   + block(countries) + "\n}}\n", encoding="utf-8")
    print(f"{len(cities)} cities, {len(countries)} countries → {OUT}")


if __name__ == "__main__":
    main()
