"""The table of :mod:`assistant.pipeline.known_figures`: facts whose figures a sentence may contradict, with the
words that must be in that sentence, the exceptions that make another figure true, and how each figure is written.
Keep to facts that do not change; add a true and a false sentence for each to ``scripts/eval_known_figures.py``.

``UNITS``: patterns named once and written ``<NAME>`` in the others (``<N>``: a number of the sentence). A form:
``after`` (the unit or noun right after the number), ``before`` (the words right before it), ``year`` (a year
anywhere), with its true ``values`` (a number, or ``[low, high]``); ``exact``: a constant's digits."""

from __future__ import annotations

from typing import Any

UNITS: dict[str, str] = {
 "C": r"°\s*C\b|degrees?\s+(?:C\b|celsius)|celsius|摄氏度|摄氏|度(?!\s*[FfK])",
 "F": r"°\s*F\b|degrees?\s+(?:F\b|fahrenheit)|fahrenheit|华氏度?",
 "K": r"K\b|kelvins?\b|开尔文|开氏度",
 "DEG": r"degrees?\b(?!\s+(?:C\b|F\b|celsius|fahrenheit|kelvin))|°(?!\s*[CF]\b)",
 "KM": r"km\b(?!\s*/|²|2)|kilomet(?:er|re)s?\b(?!\s*(?:/|per\b|an?\s+(?:hour|second)))|公里(?!每|/)|千米(?!每|/)",
 "M": r"m\b(?!\s*/|²|2|3)|met(?:er|re)s?\b(?!\s*(?:/|per\b))|米(?!每|/)",
 "MI": r"mi\b|miles?\b(?!\s*(?:/|per\b|an?\s+(?:hour|second)))|英里(?!每|/)",
 "FT": r"ft\b|feet\b|foot\b|英尺",
 "KMS": r"km\s*/\s*s\b|kilomet(?:er|re)s?\s+(?:per|a|each)\s+second|公里每秒|千米每秒|公里\s*/\s*秒|千米\s*/\s*秒",
 "MS": r"m\s*/\s*s\b(?!2|²|\^)|met(?:er|re)s?\s+(?:per|a|each)\s+second(?!\s*(?:squared|per))|米每秒|米\s*/\s*秒(?!2|²)",
 "MIS": r"mi\s*/\s*s\b|miles?\s+(?:per|a|each)\s+second|英里每秒",
 "KMH": r"km\s*/\s*h\b|kph\b|kilomet(?:er|re)s?\s+(?:per|an|each)\s+hour|公里每小时|千米每小时|公里\s*/\s*小时",
 "MPH": r"mph\b|miles?\s+(?:per|an|each)\s+hour|英里每小时",
 "MIN": r"min\b|mins\b|minutes?\b|分钟|分(?!之|贝)",
 "SEC": r"s\b|secs?\b|seconds?\b|秒",
 "HR": r"h\b|hrs?\b|hours?\b|个?小时|个?钟头",
 "DAY": r"days?\b|天|日(?!本)",
 "WEEK": r"weeks?\b|个?星期|周|个?礼拜",
 "MONTH": r"months?\b|个?月",
 "YR": r"years?\b|年",
 "PCT": r"%|percent\b|per\s+cent\b",
 "DATE": r"(?:[A-Za-z]+\.?\s+<N>(?:st|nd|rd|th)?,?\s*|<N>(?:st|nd|rd|th)?\s+[A-Za-z]+,?\s*)",
 "IS": r"(?:\s|is|are|=|≈|~|equals|approximately|approx\.?|about|roughly|around|exactly|:|,|\(|约为|约等于|等于|约|大约是|大约|是|为)*",
 "KIN": r"\b(?:son|daughter|wife|husband|mother|father|brother|sister|child|children|grand\w*|cousin|nephew|niece)\b|儿子|女儿|妻子|丈夫|母亲|父亲|兄弟|姐妹|哥哥|弟弟|姐姐|妹妹|孩子|子女|\bafter\b|\bbefore\b|年后|年前|死后|去世后|anniversary|周年|诞辰|centenary|bicentenary",
}
FACTS: list[dict[str, Any]] = []


def fact(say: str, subject: str | list[str], unless: str | None, *forms: dict[str, Any]) -> None:
    FACTS.append({"say": say, "subject": subject, "unless": unless, "forms": list(forms)})


def f(values: list[Any], after: str | None = None, before: str | None = None, **kw: Any) -> dict[str, Any]:
    d: dict[str, Any] = {"values": values, **kw}
    if after:
        d["after"] = after
    if before:
        d["before"] = before
    return d

# The conditions under which water's figures are other figures, said the ways people say them: another substance
# set against water ("unlike water, ethanol boils at 78 °C", "heavy water boils at 101.4 °C"), a height or a
# pressure given as a figure ("at 3,000 m", "at 2 bar", "under two atmospheres"), the top of a mountain.
OTHER_THAN_WATER = (r"\b(?:than|unlike|compared\s+(?:with|to)|whereas|while|as\s+opposed\s+to)\s+(?:pure\s+|plain\s+|"
                    r"ordinary\s+|regular\s+|tap\s+)?water\b|heavy\s+water|deuterium|d2o|nitrogen|mercury|helium|oxygen|"
                    r"hydrogen|acetone|methanol|petrol|gasoline|ammonia|glycol|vodka|spirits?\b|whisk(?:e)?y|比水|不像水|与水相比|"
                    r"和水(?:不同|相比)|重水|水银|汞|液氮|液氧")
# (the standard pressure, one atmosphere, is the table's own condition: "at 1 atm", "一个标准大气压" are no other)
HEIGHT_OR_PRESSURE = (r"\b\d[\d,.]*\s*(?:m|metres?|meters?|ft|feet|km|kilomet(?:er|re)s?)\b(?!\s*/)|atmospheres\b|"
                      r"\b(?:[02-9]|\d{2,}|0?\.\d+)(?:\.\d+)?\s*(?:atm|bars?)\b|\b(?!101(?:\.3)?\b)\d[\d.]*\s*[kh]?pa\b|"
                      r"pascals?\b|\bpsi\b|torr\b|\b(?:top|summit|peak)\s+of\b|la\s+paz|quito|cusco|bogot[aá]|lhasa|"
                      r"mexico\s+city|addis\s+ababa|\d+\s*(?:米|英尺|公里)|[两二三四五六七八九十\d]+\s*个大气压|千帕|兆帕|帕斯卡")
# --- temperatures
fact("water boils at 100 °C (212 °F) at sea level",
     [r"water|水|h2o", r"boil(?:s|ing)?\s+(?:point\s+)?(?:at|is|of)\b|boiling\s+(?:point|temperature)|boiling water\b.{0,24}\b(?:is|at|reaches)\b|沸点|沸腾(?:的)?温度|(?:在|于|到|达到|加热到).{0,16}(?:沸腾|烧开|就开|会开)"],
     r"altitude|elevation|above sea level|mountain|everest|denver|tibet|high(?:er)? (?:up|places?)|(?:low|lower|reduced|high|higher|air|less) pressure|pressure (?:is|drops|falls|cooker)|vacuum|cooker|salt|sugar|sea\s*water|alcohol|ethanol|milk|oil|海拔|高原|高山|山上|山顶|气压(?:低|较低|降低|高|较高|下降|变)|低气压|高压|真空|高压锅|盐|糖|海水|酒精|乙醇|牛奶|油|西藏|拉萨|珠峰|lower|drops?|reduced?|降低|"
     + OTHER_THAN_WATER + "|" + HEIGHT_OR_PRESSURE,
     f([[99.9, 100]], "<C>"), f([[211.8, 212]], "<F>"), f([[373, 373.2]], "<K>"), f([[99.9, 100], [211.8, 212]], "<DEG>"))
fact("water freezes at 0 °C (32 °F)",
     [r"water|水|h2o|ice|冰", r"freez(?:es|ing)\s+(?:point\s+)?(?:at|is|of)\b|(?:turns?|changes?)\s+(?:in)?to\s+ice|becomes?\s+ice|变成冰|freezing\s+(?:point|temperature)|melt(?:s|ing)\s+(?:point\s+)?(?:at|is|of)\b|melting point|冰点|凝固点|熔点|结冰(?:的)?温度|(?:在|于|到|低于|降到).{0,10}(?:结冰|凝固|结成冰)"],
     r"salt|sea\s*water|brine|sugar|alcohol|antifreeze|pressure|supercool|juice|milk|wine|beer|盐|海水|糖|酒|防冻|气压|压力|过冷|果汁|牛奶|lake|湖|sea\b|ocean|海洋|dry ice|干冰|"
     + OTHER_THAN_WATER + r"|\boil\b|atmospheres?\b|\bbars?\b",
     f([[0, 0]], "<C>"), f([[32, 32]], "<F>"), f([[273.15, 273.16]], "<K>"), f([[0, 0], [32, 32]], "<DEG>"))
fact("absolute zero is −273.15 °C (0 K, −459.67 °F)", r"absolute zero|绝对零度", None,
     f([[-273.15, -273.15]], "<C>"), f([[-459.67, -459.67]], "<F>"), f([[0, 0]], "<K>"),
     f([[-273.15, -273.15], [-459.67, -459.67], [0, 0]], "<DEG>"))
fact("a normal human body temperature is about 36–37.5 °C (97–99.5 °F)",
     r"(?:normal|average|healthy|typical|human|usual|core|oral)\s+(?:human\s+|adult\s+|core\s+|oral\s+)?body\s+temperature|正常(?:的)?(?:人体)?体温|人体(?:的)?(?:正常)?体温|体温(?:正常|一般)",
     r"fever|febrile|hypotherm|hypertherm|heat ?stroke|dog|cat|bird|horse|cow|animal|baby|babies|infant|newborn|basal|ovulat|发烧|发热|高烧|低烧|中暑|低温症|狗|猫|鸟|马|牛|动物|婴儿|新生儿|基础体温|排卵|超过|高于|above|exceed|drops?\s+(?:to|below)|rises?\s+(?:to|above)|降到|升到",
     f([[35.8, 37.8]], "<C>"), f([[96.4, 100]], "<F>"), f([[35.8, 37.8], [96.4, 100]], "<DEG>"))
fact("the Sun's surface is about 5,500 °C (5,772 K)",
     r"(?:sun'?s|solar)\s+surface|surface\s+(?:temperature\s+)?of\s+the\s+sun|photosphere|太阳(?:的)?表面|光球",
     r"core|corona|cent(?:er|re)|interior|inside|日冕|核心|内部|中心|sunspot|黑子|flare|耀斑|chromosphere|色球",
     f([[5400, 5800]], "<C>"), f([[5700, 5800]], "<K>"), f([[9750, 10500]], "<F>"), f([[5400, 5800], [9750, 10500]], "<DEG>"))
# --- speeds
fact("light travels at 299,792 km/s in a vacuum (about 186,282 miles a second)",
     r"speed of light|light\s+(?:travels|moves|goes)|光速|光(?:在真空中|在真空里)?的?(?:传播)?速度|光(?:在真空中)?每秒",
     r"twice|double|half|faster|slower|mach|in (?:water|glass|a fib(?:er|re)|diamond|air|a medium)|through (?:water|glass|fib(?:er|re)s?|diamond|air)|slow|percent|%|fraction|of the speed|times|light[- ]?years?|水中|玻璃|光纤|钻石|介质|空气中|减慢|变慢|倍|光年|百分之|sound|声",
     f([[299000, 300000]], "<KMS>"), f([[2.99e8, 3.0e8]], "<MS>"), f([[186000, 186300]], "<MIS>"),
     f([[1.079e9, 1.08e9]], "<KMH>"), f([[6.7e8, 6.71e8]], "<MPH>"),
     f([[299000, 300000]], "<KM>", before=r"每秒(?:钟)?<IS>"), f([[2.99e8, 3.0e8]], "<M>", before=r"每秒(?:钟)?<IS>"))
fact("sound travels through air at about 343 m/s (1,235 km/h)",
     r"speed of sound|sound\s+(?:travels|moves|goes)|音速|声速|声音.{0,10}(?:速度|每秒)",
     r"water|steel|iron|metal|solid|liquid|wood|glass|helium|hydrogen|rock|granite|diamond|水中|水里|钢|铁|金属|固体|液体|木|玻璃|氦|氢|岩石|mach|twice|double|half|faster|slower|马赫|supersonic|超音速|超声速|times|倍|jet|plane|aircraft|飞机|light|光速|光",
     f([[330, 350]], "<MS>"), f([[1190, 1260]], "<KMH>"), f([[740, 780]], "<MPH>"),
     f([[330, 350]], "<M>", before=r"每秒(?:钟)?<IS>"))
# --- heights and distances
fact("Mount Everest is 8,849 m (29,032 ft) high",
     [r"everest|珠穆朗玛|珠峰|qomolangma|sagarmatha", r"tall|high|height|elevation|altitude|summit|peak|above sea level|rises?\b|stands?\b|海拔|高度|高|峰顶"],
     r"base camp|大本营|camp\b|营地|death zone|死亡地带|grow|grew|taller by|higher by|长高|上升|climb(?:ers|ed)?\s+(?:to|reach)|oxygen|氧|k2|kangchenjunga|lhotse|makalu|乔戈里|干城章嘉|洛子|second|第二|below|under|以下|bodies|尸体|died|死亡",
     f([[8844, 8850]], "<M>"), f([[29000, 29035]], "<FT>"), f([[8.8, 8.9]], "<KM>"))
fact("the Moon is about 384,400 km from Earth (356,000–407,000 km)",
     [r"moon|月球|月亮|地月|月地", r"distance|far\b|away|from (?:the )?earth|to the moon|距离|相距|离地球|到月球|地月|远|之间"],
     r"diameter|radius|across|wide|circumference|size|直径|半径|周长|大小|speed|速度|per (?:hour|second)|每小时|每秒|mars|火星|sun\b|太阳|light|光|seconds?|秒|apollo|travel(?:l?ed)? (?:a total|in total)|journey|round trip|旅程|航程|往返|farther each|moves away|recede|远离|increase|增加|every year|per year|每年|satellite|卫星|station|空间站|orbit of the iss",
     f([[356000, 407000]], "<KM>"), f([[221000, 253000]], "<MI>"))
fact("Earth is about 150 million km (93 million miles, 1 AU) from the Sun",
     [r"sun\b|太阳|日地", r"earth|地球|日地", r"distance|far\b|away|from|距离|相距|远|之间|日地"],
     r"mercury|venus|mars|jupiter|saturn|uranus|neptune|pluto|水星|金星|火星|木星|土星|天王星|海王星|冥王星|diameter|radius|across|wide|size|times|larger|bigger|mass|直径|半径|倍|大小|质量|light|光|minutes?|分钟|seconds?|秒|speed|速度|per (?:second|hour)|每秒|每小时|core|surface|temperature|表面|温度|核心|moon|月球|月亮|proxima|star\b|恒星|voyager|probe|探测器",
     f([[147e6, 152.2e6]], "<KM>"), f([[91.0e6, 94.6e6]], "<MI>"), f([[1, 1]], r"AU\b|astronomical\s+units?|天文单位"))
fact("Earth's radius is about 6,371 km (diameter 12,742 km, circumference 40,075 km)",
     [r"earth|地球", r"radius|diameter|circumference|around the equator|across|半径|直径|周长|赤道"],
     r"moon|月球|mars|火星|sun\b|太阳|jupiter|木星|venus|金星|core|地核|crust|地壳|mantle|地幔|atmosphere|大气|orbit|轨道|times|倍|percent|%|rotat|spin|自转|km/h|per hour|每小时|mph",
     f([[6350, 6380], [12700, 12760], [40000, 40080]], "<KM>"), f([[3945, 3965], [7890, 7930], [24850, 24910]], "<MI>"))
fact("sunlight takes about 8 minutes 20 seconds to reach Earth",
     [r"light|阳光|光", r"sun|太阳|阳光|日光", r"earth|地球|reach|到达|抵达|travel|传到|照到|照射到"],
     r"moon|月球|mars|火星|jupiter|木星|saturn|土星|pluto|冥王星|neptune|海王星|star\b|stars|恒星|galaxy|星系|light[- ]?years?|光年|proxima|比邻|core|核心|photon|光子|years",
     f([[8, 8.4]], "<MIN>"), f([[480, 510], [0, 59]], "<SEC>"))  # 499 s, or the seconds after "8 minutes"
fact("a light-year is about 9.46 trillion km (5.88 trillion miles)",
     r"light[- ]?years?|光年",
     r"away|distant|from|far\b|distance|距离|之外|远|离我们|parsec|秒差距|star\b|stars|galax|恒星|星系|across|wide|直径|宽",
     f([[9.4e12, 9.47e12]], "<KM>"), f([[5.87e12, 5.88e12]], "<MI>"))
fact("a marathon is 42.195 km (26.2 miles)", r"marathon|马拉松",
     r"half|半程|半马|ultra|超马|超级|relay|接力|training|train|week|每周|训练|record|纪录|time|用时|hours?|小时|mini|迷你|\d+k\b|ran|run\s+.{0,10}in|pace|配速|participants|runners|选手|参赛|跑了|every day|每天|\bby\b|after|之后|mark|处|point|点",
     f([[42.19, 42.2]], "<KM>"), f([[26.2, 26.22]], "<MI>"))
# --- the body
fact("an adult human has 206 bones",
     [r"bones?|骨", r"adult|human|person|people|人体|成人|成年|人的|人有|body|身体|skeleton|骨骼|we\b|our\b|我们"],
     r"baby|babies|infant|newborn|child|children|kid|birth|born|婴儿|新生儿|儿童|孩子|出生|hand|foot|feet|skull|spine|ear|arm|leg|wrist|ankle|face|finger|toe|手|脚|足|颅|耳|臂|腿|腕|踝|脸|面部|脊|指|趾|dog|cat|animal|shark|bird|horse|狗|猫|动物|鲨|鸟|马|largest|longest|smallest|最大|最长|最小|broken|fracture|骨折|density|密度|percent|%|calcium|钙|marrow|骨髓|dinosaur|恐龙",
     f([[206, 213]], r"(?:块|根|个)?\s*(?:separate\s+|individual\s+|distinct\s+)?(?:bones|骨头|骨骼|块骨)"))
fact("humans have 46 chromosomes (23 pairs)",
     [r"chromosomes?|染色体", r"human|人类|人体|人的|people|person|our\b|we\b|我们|每个?细胞|cell|细胞|人有"],
     r"dog|cat|chimp|gorilla|ape\b|apes|monkey|horse|cow|pig|mouse|mice|fly|flies|plant|potato|wheat|rice|dog|猫|狗|猩猩|猴|马|牛|猪|鼠|蝇|植物|土豆|小麦|水稻|down|trisomy|turner|klinefelter|唐氏|三体|syndrome|综合征|sperm|egg|gamete|germ|精子|卵子|配子|sex chromosomes?|性染色体|autosom|常染色体|genes?|基因|bacteria|细菌|species|物种",
     f([[46, 46]], r"(?:条|个)?\s*(?:chromosomes|染色体)"), f([[23, 23]], r"(?:pairs?|对)"))
fact("the human heart has 4 chambers",
     [r"heart|心脏|心", r"chambers?|腔"],
     r"fish|frog|amphibian|reptile|snake|lizard|turtle|crocodile|鱼|蛙|两栖|爬行|蛇|蜥|龟|鳄|worm|蚯蚓|octopus|章鱼|insect|昆虫|valves?|瓣膜",
     f([[4, 4]], r"(?:个)?\s*(?:chambers?|腔室?)"))
fact("an adult has 32 permanent teeth (28 without wisdom teeth)",
     [r"teeth|tooth|牙", r"adult|permanent|grown|成人|成年|恒牙|大人"],
     r"baby|milk|primary|deciduous|child|children|kid|乳牙|儿童|孩子|小孩|dog|cat|shark|horse|狗|猫|鲨|马|wisdom|智齿|molars?|incisors?|canines?|premolars?|磨牙|门牙|切牙|犬齿|尖牙|missing|lost|缺|implant|种植|crowns?|cavit|蛀",
     f([[28, 32]], r"(?:颗|个)?\s*(?:permanent\s+|adult\s+)?(?:teeth|牙齿?|恒牙)"))
fact("a normal adult resting heart rate is 60–100 beats a minute",
     r"(?:normal|resting|healthy|average|typical)\s+(?:adult\s+)?(?:resting\s+)?(?:heart\s+rate|pulse)|(?:正常|静息|成人)(?:的)?(?:静息)?(?:心率|脉搏)|(?:心率|脉搏)(?:正常|一般)",
     r"athlete|exercise|workout|training|max|maximum|target|child|children|infant|baby|newborn|kid|dog|cat|fetal|fetus|运动员|运动|锻炼|最大|目标|儿童|孩子|婴儿|新生儿|胎儿|狗|猫|tachycardia|bradycardia|心动过速|心动过缓|above|below|over|under|高于|低于|超过|sleep|睡",
     f([[40, 100]], r"bpm\b|beats\s+(?:per|a|each)\s+minute|次\s*(?:/\s*分钟?|每分钟)?"))
fact("an adult body holds about 5 litres of blood",
     r"(?:adult|average|human|person|body)\b.{0,30}\bblood|\bblood\b.{0,20}(?:adult|human body|in the body|in your body)|成人.{0,8}血液|人体.{0,8}血液|血液总量|总血量",
     r"donat|献血|loss|lose|lost|失血|pints?|units?|单位|per\b|每|pump|泵|minute|分钟|day\b|daily|天|cells?|细胞|sugar|糖|pressure|压|alcohol|酒精|test|检测|percent|%|child|儿童|baby|婴儿|dog|狗|bag|袋|ml\b|毫升",
     f([[4, 6]], r"l\b|liters?\b|litres?\b|升|公升"), f([[4.2, 6.3]], r"quarts?\b"), f([[1.1, 1.6]], r"gallons?\b|加仑"))
fact("a human pregnancy lasts about 40 weeks (9 months, 280 days)",
     [r"pregnan|gestation|怀孕|妊娠|孕期|怀胎"],
     r"elephant|dog|cat|cow|horse|pig|sheep|rabbit|mouse|whale|animal|mammal|大象|狗|猫|牛|马|猪|羊|兔|鼠|鲸|动物|哺乳|twins|triplets|双胞胎|三胞胎|premature|preterm|早产|trimester|孕早期|孕中期|孕晚期|first|second|third|前三个月|\bweek\s+<N>|\bat\s+<N>\s+weeks|by week|第\s*<N>\s*周|since|after|之后|以后|before|之前|by\b|until|截至|test|测试|ultrasound|B超|检查",
     f([[37, 42]], r"(?:个)?\s*(?:weeks?\b|周|星期)"), f([[9, 10]], r"(?:个)?\s*(?:months?\b|月)"), f([[259, 294]], r"days?\b|天"))
# --- counts
fact("the Solar System has 8 planets", [r"planets?|行星"],
     r"dwarf|exo|extrasolar|pluto|ceres|visible|naked|rocky|terrestrial|gas|ice giants?|inner|outer|giant|矮行星|冥王星|系外|类地|岩质|内行星|外行星|肉眼|气态|巨行星|冰巨星|were\b|was\b|used to|before|until|formerly|once|曾|以前|过去|原来|原先|moons?|月亮|卫星|rings?|环|other stars?|another star|其他恒星|galaxy|星系|known|discovered|发现|其中|of (?:the|these|them)\b|之一|one of|habitable|宜居|candidates|候选|\bby\b|mission|任务|visited|探访|飞掠",
     f([[8, 8]], r"(?:颗|个)?\s*(?:大)?(?:planets|行星)"))
fact("118 chemical elements are known",
     [r"elements|元素", r"periodic table|known|discovered|confirmed|周期表|已知|发现|确认|in total|总共|共有|一共|there are|有"],
     r"natural|naturally|occur|stable|synthetic|artificial|man-made|radioactive|metals?\b|nonmetal|gas|noble|rare|essential|trace|body|group|period(?!ic)|rows?\b|columns?|天然|自然|稳定|人工|人造|合成|放射|金属|气体|稀有|惰性|必需|微量|人体|族|周期(?!表)|行|列|compound|化合物|isotope|同位素|before|until|曾|以前|\bin\s+<N>|年|mendeleev|门捷列夫|universe|宇宙|earth|地球|stars?\b|恒星|sun\b|太阳|oceans?|海|air|空气|crust|地壳",
     f([[118, 118]], r"(?:种|个)?\s*(?:(?:known|chemical|confirmed|different|distinct|identified)\s+)*(?:化学)?(?:elements|元素)"))
fact("a day has 24 hours",
     r"hours?\s+in\s+(?:a|one|each|every|1)\s+day|(?:一|每|1)天(?:有|共有|是|等于|一共)|a day (?:has|is|lasts|contains|consists of|is made up of|equals)|one day (?:has|is|lasts)|(?:一|每|1)(?:个)?昼夜",
     r"work|sleep|daylight|sunlight|light|dark|mars|venus|jupiter|saturn|moon|工作|睡|白天|日照|光照|火星|金星|木星|土星|月球|sidereal|恒星日|exact|精确|solar day|太阳日|school|上学|study|学习|minutes|分钟|seconds|秒",
     f([[24, 24]], r"(?:个)?\s*(?:hours?\b|小时|钟头|h\b)"))
fact("an hour has 60 minutes",
     r"minutes?\s+in\s+(?:an|one|each|every|1)\s+hour|(?:一|每|1)(?:个)?小时(?:有|共有|是|等于|一共)|an hour (?:has|is|lasts|contains|consists of|is made up of|equals)",
     r"seconds|秒|work|lesson|class|课|工作|drive|walk|km|公里",
     f([[60, 60]], r"(?:个)?\s*(?:minutes?\b|分钟|min\b)"))
fact("a minute has 60 seconds",
     r"seconds?\s+in\s+(?:a|one|each|every|1)\s+minute|(?:一|每|1)分钟(?:有|共有|是|等于|一共)|a minute (?:has|is|lasts|contains|consists of|is made up of|equals)",
     r"leap|闰|beats|心跳|words|字",
     f([[60, 60]], r"(?:个)?\s*(?:seconds?\b|秒)"))
fact("a day has 86,400 seconds, an hour 3,600",
     r"seconds?\s+in\s+(?:a|an|one|each|every|1)\s+(?:day|hour)|(?:一|每|1)(?:天|小时)(?:有|共有|是|等于|一共).{0,6}秒",
     r"leap|闰|sidereal|恒星|minute(?!s)|分钟(?!有)",
     f([[86400, 86400], [3600, 3600]], r"(?:个)?\s*(?:seconds?\b|秒)"))
fact("a week has 7 days",
     r"days?\s+in\s+(?:a|one|each|every|1)\s+week|(?:一|每|1)(?:个)?(?:星期|周|礼拜)(?:有|共有|是|等于|一共)|a week (?:has|is|lasts|contains|consists of|is made up of|equals)",
     r"work|school|business|working|weekday|weekend|工作|上班|上学|营业|工作日|周末|rain|雨|exercise|锻炼|运动|gym|hours|小时",
     f([[7, 7]], r"days?\b|天"))
fact("a year has 365 days (366 in a leap year), 12 months and 52 weeks",
     r"(?:days?|weeks?|months?|hours?)\s+(?:are\s+)?in\s+(?:a|one|each|every|1)\s+(?:common\s+|calendar\s+|normal\s+|regular\s+)?year|(?:一|每|1)年(?:有|共有|是|等于|一共)|a (?:common |calendar |normal |regular )?year (?:has|is|contains|lasts)",
     r"leap|闰|mars|火星|venus|金星|jupiter|木星|saturn|土星|mercury|水星|lunar|农历|阴历|chinese calendar|islamic|hijri|hebrew|jewish|school|academic|fiscal|work|working|business|holiday|vacation|学年|财年|工作日|假期|节假日|dog|light|光年|sidereal|tropical|恒星年|回归年|rain|sunny|snow|雨|晴|雪|pay|salary|工资|薪|exercise|锻炼|tax|税|season|季",
     f([[365, 365.26]], r"days?\b|天"), f([[12, 12]], r"(?:个)?\s*(?:months?\b|月)"), f([[52, 52.2]], r"(?:个)?\s*(?:weeks?\b|星期|周|礼拜)"),
     f([[8760, 8766]], r"(?:个)?\s*(?:hours?\b|小时)"))
fact("February has 28 days (29 in a leap year)",
     r"february\s+(?:has|have|had|contains|is|lasts|only has|usually has|normally has)|(?:二月|2月)(?:份)?(?:有|共有|只有|一般有|通常有|是|一共)|days?\s+in\s+february|二月(?:份)?的天数",
     r"rain|snow|sun|cold|hot|holiday|work|school|雨|雪|晴|冷|热|假|工作|上学|until|before|after|\bby\b|between|from|截止|之前|之后|到|至|hours|小时|sales|销售",
     f([[28, 29]], r"days?\b|天"))
fact("a leap year comes every 4 years",
     [r"leap\s+years?|闰年", r"every|each|每"],
     r"centur|世纪|百年|<N>\s*00\b|divisible|整除|except|除",
     f([[4, 4]], r"(?:个)?\s*(?:years?\b|年)", before=r"(?:every|each|每)\s*"))
fact("there are 7 continents (6 or 5 in some conventions) and 5 oceans (4 in older ones)",
     [r"continents?|oceans?|大洲|大洋|洲|洋"],
     r"countries|country|国家|olympic|奥运|rings?|环|seas\b|海(?!洋)|visited|去过|travel|旅行|plates?|板块",
     f([[5, 7]], r"(?:个)?\s*(?:大)?(?:continents|大洲|洲)"), f([[4, 5]], r"(?:个)?\s*(?:大)?(?:oceans|大洋|洋)"))
fact("a spider has 8 legs", [r"spiders?|蜘蛛|arachnids?|蛛形"],
     r"insects?|昆虫|eyes|眼|species|种|spinnerets|silk|丝|web|网|ants?\b|蚂蚁|missing|lost|缺|born|hatch",
     f([[8, 8]], r"(?:条|只)?\s*(?:legs|腿|脚|足)"))
fact("an insect has 6 legs", [r"insects?|昆虫"],
     r"spiders?|蜘蛛|arachnids?|蛛形|centipede|millipede|蜈蚣|马陆|crab|蟹|shrimp|虾|larva|caterpillar|幼虫|毛毛虫|species|种|wings|翅|scorpion|蝎|tick|蜱|mite|螨",
     f([[6, 6]], r"(?:条|只)?\s*(?:legs|腿|脚|足)"))
fact("the angles of a triangle add up to 180°",
     [r"triangles?|三角形", r"sum|add up|total|add to|内角和|之和|加起来|总和|相加"],
     r"spher|curved|non-euclid|hyperbolic|球面|曲面|非欧|双曲|exterior|外角|quadrilateral|四边形|polygon|多边形|pentagon|五边形|hexagon|六边形|square|正方形|rectangle|长方形|矩形|radians?|弧度|sides|边长",
     f([[180, 180]], r"°|degrees?\b|度"))
fact("the angles of a quadrilateral add up to 360°",
     [r"quadrilateral|四边形|rectangles?|squares?|长方形|正方形|矩形|parallelogram|平行四边形|trapezi?oid|梯形", r"sum|add up|total|add to|内角和|之和|加起来|总和|相加"],
     r"triangles?|三角形|pentagon|五边形|hexagon|六边形|exterior|外角|spher|球面|radians?|弧度|each|every|每个",
     f([[360, 360]], r"°|degrees?\b|度"))
fact("a chessboard has 64 squares and 32 pieces (16 a side)",
     [r"chess|国际象棋|棋盘"],
     r"xiangqi|中国象棋|(?<!国际)象棋|\bgo\b|围棋|checkers|draughts|跳棋|shogi|将棋|960|variant|变体|moves?\b|步|games?\b|局|positions?|局面|openings?|开局|captured|吃掉|left|剩|pawns|knights?|bishops?|rooks?|queens?|kings?",
     f([[64, 64]], r"(?:个)?\s*(?:squares|格子?|方格)"), f([[32, 32], [16, 16]], r"(?:个|枚)?\s*(?:pieces|棋子)"))
fact("a deck of playing cards has 52 cards (54 with jokers)",
     [r"deck|pack of cards|扑克|playing cards|一副牌|一副扑克|整副"],
     r"uno|tarot|塔罗|hands?\b|手牌|each player|per player|每人|每个人|each|deal|dealt|发牌|发|blackjack|remaining|left|剩|suits?|花色|per suit|每种|poker hand|drawn|抽|pinochle|skat|euchre|magic|pok[eé]mon|yu-gi-oh|游戏王|collectible|trading|collection|收藏|decks\b|几副",
     f([[52, 52], [54, 54]], r"(?:张)?\s*(?:cards|牌)"))
fact("a standard piano has 88 keys", [r"pianos?|钢琴"],
     r"digital|keyboard|electronic|toy|mini|电子琴|数码|玩具|black|white|黑键|白键|octave|八度|pedals?|踏板|strings?|弦|practi|练|hours|小时|early|historic|forte-?piano|古钢琴|bösendorfer|imperial|97",
     f([[88, 88]], r"(?:个)?\s*(?:keys|键|琴键)"))
fact("the United States has 50 states",
     r"(?:united states|america|\bthe us\b|\bthe usa\b|\bthe u\.s\.a?\.?)\s+(?:has|have|consists? of|is made up of|comprises|is composed of|contains)|states\s+in\s+(?:the\s+)?(?:us\b|usa\b|u\.s\.a?\.?|united states|america)|美国(?:一共|总共|共)?(?:有|由)|us states|美国的州(?:有|共)",
     r"original|colonies|colony|founding|thirteen|at (?:the time|first)|\bin\s+<N>|最初|殖民地|原始|独立时|electoral|votes|选举人|swing|battleground|摇摆|border|接壤|coast|沿海|legal|合法|ban|allow|允许|禁止|where|其中|contiguous|lower 48|本土|continental|mainland|territor|领地|counties|县|cities|城市|people|人口|million|万|亿",
     f([[50, 50]], r"(?:个)?\s*(?:states|州)"))
fact("the Olympic symbol has 5 rings", r"olympic\s+(?:rings|symbol|flag|logo)|奥运(?:五环|会会旗|标志|旗|会标志)|奥林匹克(?:标志|五环|旗)", None,
     f([[5, 5]], r"(?:个)?\s*(?:interlocking\s+|coloured\s+|colored\s+)?(?:rings|环)"))
fact("a byte has 8 bits",
     r"(?:\ba|\bone|\b1|\beach|\bevery)\s*byte\b|(?:1|一|每)\s*(?:个)?字节|一个字节|每个字节",
     r"kilobyte|megabyte|gigabyte|\bkb\b|\bmb\b|\bgb\b|kib|mib|word|nibble|半字节|千字节|兆字节|unicode|utf|character|字符|parity|校验|<N>\s*bytes",
     f([[8, 8]], r"(?:个)?\s*(?:bits\b|位|比特)"))
# --- constants, said as their digits
IS = "<IS>"
fact("π is 3.14159…", r"π|\bpi\b|圆周率", None,
     f([[3.141592653589793, 3.141592653589793]], None, r"(?<![\d×*·/+\-\ue001])(?<![×*·/+\-]\s)(?:π|\bpi\b|圆周率)(?:\s*(?:to|rounded to|correct to|accurate to)\s+\S+\s+(?:decimal\s+)?(?:places|digits|figures|decimals))?(?:\s*(?:is|equals|约为|约等于|等于|是|为)\s*)?" + IS, exact=True))
fact("e is 2.71828…", r"euler'?s number|natural\s+(?:logarithm|log)\b|自然常数|自然对数|欧拉数|\be\s*(?:=|≈)|(?:number|constant|常数)\s*e\b", None,
     f([[2.718281828459045, 2.718281828459045]], None, r"(?:euler'?s number|(?:base of (?:the )?)?natural logarithms?(?: base)?|自然常数|自然对数的底数?|欧拉数|(?<![\w.])e)" + IS, exact=True))
fact("the square root of 2 is 1.41421…", r"√\s*2|sqrt\s*\(?\s*2\b|square root of (?:2|two)\b|根号\s*2|根号二|2的平方根|二的平方根", None,
     f([[1.4142135623730951, 1.4142135623730951]], None, r"(?<![×*·/+\-\ue001])(?<![×*·/+\-]\s)(?:√\s*<N>|sqrt\s*\(?\s*<N>\s*\)?|square root of (?:<N>|two)|根号\s*<N>|根号二|<N>的平方根|二的平方根)" + IS, exact=True))
fact("the golden ratio is 1.61803… (its reciprocal 0.61803…)", r"golden ratio|黄金(?:分割|比例|比)|\bphi\b|φ", None,
     f([[1.618033988749895, 1.618033988749895], [0.6180339887498949, 0.6180339887498949]], None, r"(?:golden ratio|黄金(?:分割|比例|比)(?:率|数|点)?|\bphi\b|φ)" + IS, exact=True))
fact("gravity at Earth's surface is about 9.8 m/s²",
     [r"gravit|重力|free fall|free-fall|自由落体|\bg\b"],
     r"moon|mars|jupiter|venus|mercury|saturn|sun\b|月球|月亮|火星|木星|金星|水星|土星|太阳|space station|\biss\b|空间站|orbit|轨道|altitude|高空|equator|pole|赤道|两极|极地|constant|常数|G\s*=|6\.67|force|newtons?\b|牛顿(?!.{0,6}每)|g-force|过载|\bg's\b|pilot|飞行员|roller|过山车",
     f([[9.78, 9.84]], r"m\s*/\s*s\s*(?:\^?2|²)|met(?:er|re)s?\s+per\s+second\s+(?:squared|per\s+second)|米每²秒|米\s*/\s*秒\s*(?:\^?2|²)|N\s*/\s*kg|牛(?:顿)?\s*/\s*千克|牛(?:顿)?每千克"),
     f([[32.1, 32.2]], r"ft\s*/\s*s\s*(?:\^?2|²)|feet\s+per\s+second\s+(?:squared|per\s+second)"))
# --- areas, ages, shares
fact("China covers about 9.6 million km²",
     [r"china|中国", r"area|面积|territory|国土|陆地|land\b|covers"],
     r"sea|ocean|marine|maritime|海域|海洋|water|水域|forest|森林|耕地|arable|farmland|grassland|草原|desert|沙漠|province|省|city|市|region|地区|county|县|urban|城市|percent|%|百分|mountain|山地|plateau|高原|basin|盆地|plain|平原|lake|湖|river|河|reserve|保护区|population|人口|density|密度|per capita|人均|hong kong|香港|macau|澳门|taiwan|台湾|tibet|西藏|xinjiang|新疆",
     f([[9.5e6, 9.7e6]], r"km\s*(?:2|²)|square\s+kilomet(?:er|re)s?|sq\.?\s*km|平方公里|平方千米"), f([[3.69e6, 3.75e6]], r"square\s+miles?|sq\.?\s*mi\b|平方英里"))
fact("Earth is about 4.54 billion years old",
     [r"earth|地球", r"\bold\b|\bage\b|formed|form(?:ation)?\b|born|年龄|形成|诞生|岁|历史"],
     r"life|生命|human|人类|homo|dinosaur|恐龙|oldest|最古老|moon|月球|sun\b|太阳|universe|宇宙|solar system|太阳系|ice age|冰期|冰河|continent|大陆|ocean|海洋|atmosphere|大气|oxygen|氧|crust|地壳|rotation|自转|orbit|公转|days?\b|hours?\b|天|小时|fossil|化石|rock|岩石|mineral|矿物|zircon|锆石|cambrian|寒武",
     f([[4.5e9, 4.6e9]], r"(?:years?\b|年)"))
fact("the universe is about 13.8 billion years old",
     [r"universe|宇宙|big bang|大爆炸", r"\bold\b|\bage\b|formed|began|begin|born|ago|年龄|诞生|起源|岁|前|history|历史"],
     r"observable|diameter|radius|across|wide|直径|半径|light[- ]?years?|光年|galax|星系|stars?\b|恒星|sun\b|太阳|earth|地球|solar|太阳系|first (?:stars|galaxies|atoms)|最早的|after the big bang|大爆炸后|seconds?|minutes?|秒|分钟|cmb|microwave|微波|inflation|暴胀|dark|暗|expand|膨胀",
     f([[13.7e9, 13.83e9]], r"(?:years?\b|年)"))
fact("oceans cover about 71% of Earth's surface",
     [r"earth|地球|planet|world|全球", r"surface|表面|cover|覆盖|面积", r"water|ocean|sea\b|水|海洋|海"],
     r"fresh|salt|drinkable|potable|淡水|咸水|ice|冰|glacier|冰川|land\b|陆地|groundwater|地下水|explored|探索|unexplored|mapped|测绘|volume|体积|of (?:the )?(?:earth'?s|world'?s|all(?: the)?) water|水资源|depth|deep|深|plastic|塑料|life|生命|oxygen|氧|population|人口|people|人|clouds?|云|atmosphere|大气|body|人体",
     f([[70, 72]], r"<PCT>"), f([[70, 72]], r"", before=r"百分之"))
# --- years of events
WW2 = r"world war\s*(?:ii|2|two)\b|second world war|ww\s?(?:ii|2)\b|二战|第二次世界大战|第2次世界大战"
WW1 = r"world war\s*(?:i|1|one)\b(?!i)|first world war|ww\s?(?:i|1)\b(?!i)|一战|第一次世界大战|第1次世界大战|great war"
AFTER = r"anniversary|周年|since|years? (?:after|later)|(?:之|以)后|以来|后的|aftermath|postwar|post-war|战后|cold war|冷战|rebuil|重建|before|prior|之前|以前|前的|veterans?|老兵|film|movie|电影|book|书|novel|小说|game|游戏|born|出生|died|去世"
fact("the Second World War began in 1939", [WW2, r"began|begin|started?|start|broke out|outbreak|爆发|开始|开战|打响"],
     AFTER + r"|pacific|asia|china|japan|sino|pearl|entered|joined|soviet|russia|太平洋|亚洲|中国|日本|抗日|抗战|珍珠港|参战|加入|苏联|ended|结束",
     f([[1939, 1939]], year=True))
fact("the Second World War ended in 1945", [WW2, r"ended|\bend\b|ending|over\b|concluded|surrender|结束|终结|胜利|投降"],
     AFTER + r"|began|begin|start|broke out|爆发|开始",
     f([[1945, 1945]], year=True))
fact("the First World War began in 1914", [WW1, r"began|begin|started?|start|broke out|outbreak|爆发|开始|开战|打响"],
     AFTER + r"|entered|joined|参战|加入|ended|结束",
     f([[1914, 1914]], year=True))
fact("the First World War ended in 1918", [WW1, r"ended|\bend\b|ending|over\b|concluded|armistice|结束|终结|停战"],
     AFTER + r"|versailles|凡尔赛|treaty|条约|paris peace|began|begin|start|broke out|爆发|开始",
     f([[1918, 1918]], year=True))
fact("people first landed on the Moon in 1969 (Apollo 11)",
     [r"moon|月球|月亮|lunar|登月", r"landed|landing|walk(?:ed)?\s+on|set foot|stepp?ed\s+on|登月|登陆|踏上|着陆|apollo\s*11|阿波罗\s*11号?"],
     r"anniversary|周年|last|最后|again|return|重返|再次|unmanned|robotic|uncrewed|probe|rover|lander|无人|探测器|月球车|着陆器|chang'?e|嫦娥|india|chandrayaan|印度|soviet|luna\b|苏联|russia|俄罗斯|japan|slim|日本|israel|以色列|china|中国|will|plan|计划|将|future|未来|apollo\s*1[2-7]|阿波罗\s*1[2-7]|second|第二|sixth|six|6\s*次|missions|次任务|between|until|films?|movie|电影|hoax|conspiracy|阴谋|born|出生|died|去世|artemis|阿尔忒弥斯",
     f([[1969, 1969]], year=True))
fact("the People's Republic of China was founded in 1949",
     r"中华人民共和国.{0,10}(?:成立|建立|诞生|宣告|建国)|新中国.{0,6}(?:成立|建立|诞生)|(?:people'?s republic of china|\bprc\b).{0,40}(?:founded|established|proclaimed|created|born)|(?:founding|establishment|proclamation) of the (?:prc|people'?s republic)",
     r"anniversary|周年|年来|以来|since|after|之后|以后|后的|五年计划|before|之前|以前|前的|reform|改革|born|出生",
     f([[1949, 1949]], year=True))
fact("the United States declared independence in 1776",
     r"declaration of independence|独立宣言|american independence|(?:united states|america|\bthe us\b|\bthe u\.s\.|美国).{0,30}(?:declared independence|became independent|independence was declared|宣布独立|宣告独立)",
     r"anniversary|周年|mexico|india|ireland|brazil|墨西哥|印度|爱尔兰|巴西|war|战争|treaty|条约|recogni|承认|constitution|宪法|after|since|之后|以来|signers|签署者|born|出生|died|去世",
     f([[1776, 1776]], year=True))
fact("the Berlin Wall fell in 1989", [r"berlin wall|柏林墙", r"\bfell\b|\bfall\b|came down|torn down|opened|倒塌|拆除|推倒|倒下|开放"],
     r"anniversary|周年|reunif|统一|built|erected|constructed|went up|修建|建造|建起|since|after|以来|之后|years? later",
     f([[1989, 1989]], year=True))
fact("the Berlin Wall went up in 1961", [r"berlin wall|柏林墙", r"built|erected|constructed|went up|修建|建造|建起|竖起"],
     r"anniversary|周年|\bfell\b|\bfall\b|came down|torn|倒塌|拆|since|after|以来|之后|years? later",
     f([[1961, 1961]], year=True))
fact("the Titanic sank in 1912", [r"titanic|泰坦尼克", r"\bsank\b|\bsink|sunk|sinking|struck|hit|collided|沉没|沉船|撞上|撞击|触礁"],
     r"film|movie|cameron|dicaprio|电影|影片|卡梅隆|musical|音乐剧|wreck\w*\s+(?:was\s+)?(?:found|discovered|located)|残骸|发现|submarine|submersible|titan\b|潜水器|expedition|探险|anniversary|周年|replica|复制",
     f([[1912, 1912]], year=True))

_PEOPLE = [
 ("Albert Einstein (1879–1955)", r"einstein|爱因斯坦", 1879, 1955),
 ("Isaac Newton (1643–1727; 1642 in the old calendar)", r"newton|牛顿", [1642, 1643], 1727),
 ("William Shakespeare (1564–1616)", r"shakespeare|莎士比亚", 1564, 1616),
 ("Wolfgang Amadeus Mozart (1756–1791)", r"mozart|莫扎特", 1756, 1791),
 ("Ludwig van Beethoven (1770–1827)", r"beethoven|贝多芬", 1770, 1827),
 ("Charles Darwin (1809–1882)", r"darwin|达尔文", 1809, 1882),
 ("Abraham Lincoln (1809–1865)", r"lincoln|林肯", 1809, 1865),
 ("Napoleon Bonaparte (1769–1821)", r"napoleon|拿破仑", 1769, 1821),
 ("Marie Curie (1867–1934)", r"marie curie|curie|居里夫人", 1867, 1934),
 ("Galileo Galilei (1564–1642)", r"galileo|伽利略", 1564, 1642),
 ("Leonardo da Vinci (1452–1519)", r"da vinci|leonardo|达·?芬奇", 1452, 1519),
 ("Li Bai (701–762)", r"李白|li bai", 701, 762),
 ("Du Fu (712–770)", r"杜甫|du fu", 712, 770),
 ("Lu Xun (1881–1936)", r"鲁迅|lu xun", 1881, 1936),
 ("Sun Yat-sen (1866–1925)", r"孙中山|孙文|sun yat-sen|sun yat sen", 1866, 1925),
 ("Mao Zedong (1893–1976)", r"毛泽东|mao zedong|mao tse-tung", 1893, 1976),
 ("Nikola Tesla (1856–1943)", r"tesla|特斯拉", 1856, 1943),
 ("Alan Turing (1912–1954)", r"turing|图灵", 1912, 1954),
 ("Stephen Hawking (1942–2018)", r"hawking|霍金", 1942, 2018),
 ("Johann Sebastian Bach (1685–1750)", r"\bbach\b|巴赫", 1685, 1750),
]
PEOPLE: list[dict[str, Any]] = []
for say, who, born, died in _PEOPLE:
    PEOPLE.append({"say": "the years of " + say, "who": who, "born": [[x, x] for x in born] if isinstance(born, list) else [born], "died": [died]})
ELEMENTS: list[dict[str, Any]] = [{"name": n, "say": s, "number": z} for n, s, z in [
 (r"hydrogen|氢", "hydrogen", 1), (r"helium|氦", "helium", 2), (r"lithium|锂", "lithium", 3), (r"carbon|碳", "carbon", 6),
 (r"nitrogen|氮", "nitrogen", 7), (r"oxygen|氧", "oxygen", 8), (r"sodium|钠", "sodium", 11), (r"aluminium|aluminum|铝", "aluminium", 13),
 (r"silicon|硅", "silicon", 14), (r"iron|铁", "iron", 26), (r"copper|铜", "copper", 29), (r"silver|银", "silver", 47),
 (r"gold|金", "gold", 79), (r"mercury|汞", "mercury", 80), (r"lead|铅", "lead", 82), (r"uranium|铀", "uranium", 92)]]
