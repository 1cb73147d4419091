"""The settings table of docs/configuration.md, written from the settings' own fields (as aider writes its options
page from its declarations), so the page cannot lag behind a new setting. tests/test_config.py checks that the page
holds what this writes.

    python scripts/settings_reference.py          # rewrite the table in docs/configuration.md
    python scripts/settings_reference.py --check  # exit 1 when the page differs"""

from __future__ import annotations

import argparse
import sys

from _common import ROOT

from assistant.config_file import settings_reference

PAGE = ROOT / "docs" / "configuration.md"
BEGIN = "<!-- the settings: written by scripts/settings_reference.py from assistant/config.py; do not edit by hand -->"
END = "<!-- end of the settings -->"


def with_table(page: str) -> str:
    head, _, rest = page.partition(BEGIN)
    _, _, tail = rest.partition(END)
    return f"{head}{BEGIN}\n{settings_reference()}\n{END}{tail}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--check", action="store_true", help="only compare; exit 1 when the page differs")
    args = ap.parse_args()
    page = PAGE.read_text(encoding="utf-8")
    if BEGIN not in page or END not in page:
        print(f"{PAGE} has no settings markers", file=sys.stderr)
        return 1
    fresh = with_table(page)
    if args.check:
        same = fresh == page
        print("the settings table is up to date" if same else "the settings table differs: run scripts/settings_reference.py")
        return 0 if same else 1
    PAGE.write_text(fresh, encoding="utf-8")
    print(f"wrote the settings table ({settings_reference().count(chr(10)) - 1} settings) into {PAGE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
