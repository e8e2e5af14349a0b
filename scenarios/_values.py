"""Values compared by meaning: numbers with units in any usual notation, words in any usual spelling.

One home for reading a figure out of a cell or a sentence (``$57.5M``, ``57,500,000``, ``24.6%``,
``0.246``, ``2.9x``) and deciding whether it states an expected value in its unit; and for the word
normalisation (case, British/American spelling, plurals, common abbreviations) that label matching
and text facts share. docs/scoring.md states the rules.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

_SCALE = {
    "k": 1e3, "thousand": 1e3, "m": 1e6, "mm": 1e6, "mn": 1e6, "million": 1e6,
    "b": 1e9, "bn": 1e9, "billion": 1e9,
}  # fmt: skip
_FAMILY = {"%": "pct", "percent": "pct", "pct": "pct", "pp": "pct", "x": "mult", "bps": "bps", "bp": "bps"}

# A number: optional currency, digits with thousands separators or decimals, optional unit.
NUMBER = re.compile(
    r"(?<![\w.])(?P<neg>[-−–])?(?P<cur>US\$|[$€£])?\s?(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)"
    r"(?:\s?(?P<unit>%|percent\b|per cent\b|pct\b|pp\b|bps\b|bp\b|x\b|×|thousand\b|million\b|billion\b|mm\b|mn\b|bn\b|[kKmMbB]\b))?"
)
FULL_SCALES = (1e3, 1e6, 1e9)


@dataclass(frozen=True)
class Quantity:
    """A number read from text, with its unit family and the value in base units when scaled."""

    value: float
    family: str  # pct, mult, bps, money, plain
    scaled: float | None


def _parse(m: re.Match[str]) -> Quantity | None:
    try:
        v = float(m.group("num").replace(",", ""))
    except ValueError:
        return None
    if not math.isfinite(v):
        return None
    if m.group("neg"):
        v = -v
    unit = (m.group("unit") or "").lower().replace("×", "x").replace("per cent", "percent")
    family = _FAMILY.get(unit, "money" if m.group("cur") else "plain")
    scaled = v * _SCALE[unit] if unit in _SCALE else None
    return Quantity(v, family, scaled)


def quantities(text: str) -> list[Quantity]:
    """Every number in ``text``: '$82.5M', '21.3%', '2.46x', '1,250', '-3.1 pp', '450 bps'."""
    out = []
    for m in NUMBER.finditer(text):
        q = _parse(m)
        if q is not None:
            out.append(q)
    return out


# Two figures offered as alternatives: '24.6 or 29.5', '24.6, or maybe 29.5'. Ranges and intervals
# ('95% CI -8.9 to -4.6', 'between 20 and 30') state both ends and are not alternatives.
_HEDGED_PAIR = re.compile(
    r"(?P<a>" + NUMBER.pattern + r")\s*,?\s*or(?:\s+(?:maybe|perhaps|possibly))?\s*(?P<b>"
    + NUMBER.pattern.replace("?P<", "?P<b_") + r")",
    re.I,
)


def committed_quantities(text: str) -> list[Quantity]:
    """The figures of ``text`` that commit to a value: not one of two offered as alternatives ('24.6 or 29.5')."""
    hedged: list[tuple[int, int]] = [(m.start(), m.end()) for m in _HEDGED_PAIR.finditer(text)]
    if not hedged:
        return quantities(text)
    return [q for s, e, q in quantity_spans(text) if not any(hs <= s and e <= he for hs, he in hedged)]


def quantity_spans(text: str) -> list[tuple[int, int, Quantity]]:
    """Every number in ``text`` with its character span."""
    out = []
    for m in NUMBER.finditer(text):
        q = _parse(m)
        if q is not None:
            out.append((m.start(), m.end(), q))
    return out


def parse_signal_number(s: str) -> Quantity | None:
    """``s`` read as one bare figure ('25%', '$4.1M'), or None when it is words."""
    m = NUMBER.fullmatch(s.strip())
    return _parse(m) if m is not None else None


def read_quantity(v: Any) -> Quantity | None:
    """A cell's value as a quantity: numbers as they are, strings such as '$57.5M', '24.6%', '1,234'."""
    v = cell_value(v)
    if isinstance(v, bool) or v is None:
        return None
    if isinstance(v, int | float):
        return Quantity(float(v), "plain", None) if math.isfinite(v) else None
    if isinstance(v, str):
        s = v.strip()
        if not s or len(s) > 40:
            return None
        m = NUMBER.search(s)
        if m is None:
            return None
        rest = (s[: m.start()] + s[m.end() :]).strip(" ()").lower()
        # Only a figure with at most a unit word around it reads as a number ("12 / 35" does not).
        if rest and (len(rest) > 12 or any(ch.isdigit() for ch in rest)):
            return None
        return _parse(m)
    return None


def cell_value(v: Any) -> Any:
    """A spreadsheet cell may be a scalar or ``{"value": ..., "formula": ...}``; give the value."""
    if isinstance(v, dict) and "value" in v and set(v) <= {"value", "formula", "format", "note", "unit"}:
        return v["value"]
    return v


def as_number(v: Any) -> float | None:
    """A cell's number (string cells with units included), unscaled: '$82.5M' → 82.5, '21.3%' → 21.3."""
    q = read_quantity(v)
    return None if q is None else q.value


def numbers_close(actual: float, expected: float, tolerance_pct: float) -> bool:
    """Relative comparison; an expected zero needs |actual| within tolerance_pct/100 absolute."""
    if expected == 0:
        return abs(actual) <= tolerance_pct / 100.0
    return abs(actual - expected) <= abs(expected) * tolerance_pct / 100.0


def _round_sig(v: float, k: int) -> float:
    if v == 0:
        return 0.0
    return round(v, k - 1 - int(math.floor(math.log10(abs(v)))))


def _calendar_year(v: float) -> bool:
    return v == int(v) and 1900 <= abs(v) <= 2100


def close(stated: float, value: float, tolerance_pct: float) -> bool:
    """Within tolerance, or the value correctly rounded to three or more significant figures. A calendar
    year is a label, not a measurement: 2026 does not state 2027, though they are 0.05 % apart."""
    if _calendar_year(value) and stated == int(stated):
        return stated == value
    if numbers_close(stated, value, tolerance_pct):
        return True
    if stated == 0 or value == 0 or abs(stated - value) > 0.0051 * abs(value):
        return False  # three significant figures are never further off than half a percent
    return any(abs(_round_sig(value, k) - stated) <= 1e-9 * abs(stated) for k in range(3, 7))


@lru_cache(maxsize=4096)
def unit_family(unit: str) -> tuple[str, float]:
    """(family, scale) of a unit as a fact or template states it: '%' → pct, '$M' → money ×1e6, '' → any."""
    u = unit.strip().lower()
    if not u:
        return "any", 1.0
    if u in ("%", "percent", "pct", "pp", "% pts", "percentage points") or u.startswith("%") or u.startswith("% "):
        return "pct", 1.0
    if u in ("x", "×", "times"):
        return "mult", 1.0
    if u in ("bps", "bp"):
        return "bps", 1.0
    bare = u.replace("us$", "").replace("$", "").replace("€", "").replace("£", "").replace("usd", "").strip()
    for suffix, s in (("bn", 1e9), ("b", 1e9), ("mm", 1e6), ("m", 1e6), ("k", 1e3)):
        if bare == suffix:
            return "money", s
    if any(c in u for c in "$€£") or "usd" in u:
        return "money", 1.0
    # A count in a scale: 'M people', 'K cases', 'bn units'.
    head, _, rest = u.partition(" ")
    if rest and head in _SCALE:
        return "count", _SCALE[head]
    return ("count" if u else "any"), 1.0


@lru_cache(maxsize=65536, typed=True)
def stated_tolerance_pct(v: float, floor_pct: float = 0.5) -> float:
    """How precisely a figure was stated: half a unit of its last digit, relative (at least ``floor_pct``).

    '25' may stand for 24.6 (a rounded figure is still a known one); '24.6' may not stand for 24.9.
    """
    if v == 0:
        return floor_pct
    text = repr(abs(v))
    decimals = len(text.split(".")[1]) if "." in text and not text.endswith(".0") and "e" not in text else 0
    unit = 10.0 ** (-decimals)
    if decimals == 0 and abs(v) >= 1000:
        # Full digits carry their precision in their trailing zeros: $2,400,000 is $2.4M.
        n = int(abs(v))
        while n and n % 10 == 0:
            n //= 10
            unit *= 10
    return max(floor_pct, 0.5 * unit / abs(v) * 100)


@lru_cache(maxsize=262144, typed=True)  # a judge asks about the same figure and fact again and again
def number_matches(q: Quantity, value: float, unit: str, tolerance_pct: float) -> bool:
    """Whether a quantity read from text states ``value`` (in ``unit``) within tolerance.

    The same amount in any usual notation counts: '$57.5M', '57.5 million', '$57,500,000' for
    57.5 in $M; '24.6%' and '0.246' for 24.6 in %; '21.3%' for a fraction 0.213 stored for a
    percent. Units must agree when both sides say one. Signs are not compared (changes are said
    either way round).
    """
    family, scale = unit_family(unit)
    if family in ("pct", "mult", "bps") and q.family not in (family, "plain"):
        return False
    if family in ("money", "count") and q.family in ("pct", "mult", "bps"):
        return False
    a, want = abs(q.value), abs(value)
    if q.scaled is not None and family in ("money", "count"):
        # A quantity is its digits, its scale and its unit: a stated scale must be the fact's
        # ('$57.5K' and '$57.5 billion' are not $57.5M).
        return close(abs(q.scaled), want * scale, tolerance_pct)
    if close(a, want, tolerance_pct):
        return True
    if q.scaled is not None and close(abs(q.scaled), want * scale, tolerance_pct):
        return True
    if scale != 1.0 and q.family in ("plain", "money") and close(a, want * scale, tolerance_pct):
        return True  # full digits: $57,500,000 for 57.5 in $M
    if family == "pct":
        if want <= 1.5 and close(a, want * 100, tolerance_pct):
            return True  # the expected value is stored as a fraction
        if q.family == "plain" and a <= 1.5 and close(a * 100, want, tolerance_pct):
            return True  # said as a fraction: 0.246 for 24.6%
    return False


def same_number(got: Any, want: float, unit: str = "", tolerance_pct: float = 0.5) -> bool:
    """Whether a cell holds ``want`` (in ``unit``) by meaning.

    A cell has one figure, so any usual scale is accepted when the unit is not known: full digits
    (×1,000, ×1,000,000, ×1,000,000,000) and a fraction for a percent.
    """
    q = read_quantity(got)
    if q is None:
        return False
    if number_matches(q, want, unit, tolerance_pct):
        return True
    family, _ = unit_family(unit)
    if family != "any":
        return False
    a, w = abs(q.value if q.scaled is None else q.scaled), abs(want)
    if q.family in ("plain", "money") and any(close(a, w * s, tolerance_pct) for s in FULL_SCALES):
        return True
    if q.family == "pct" and w <= 1.5 and close(abs(q.value), w * 100, tolerance_pct):
        return True
    return q.family == "plain" and abs(q.value) <= 1.5 and close(abs(q.value) * 100, w, tolerance_pct)


def figure_stated(figure: Quantity, said: list[Quantity], tolerance_pct: float = 0.5) -> bool:
    """Whether any of ``said`` states ``figure`` (a figure read from reference text, with its own unit)."""
    unit = {"pct": "%", "mult": "x", "bps": "bps"}.get(figure.family, "")
    for g in said:
        if number_matches(g, figure.value, unit, tolerance_pct):
            return True
        if figure.scaled is not None:
            gv = abs(g.scaled if g.scaled is not None else g.value)
            if g.family not in ("pct", "mult", "bps") and close(gv, abs(figure.scaled), tolerance_pct):
                return True
    return False


# --------------------------------------------------------------------------- words

_BRITISH = (
    (re.compile(r"(?<=\w)is(e|ed|es|ing|ation|ations)\b"), r"iz\1"),
    (re.compile(r"(?<=\w)ys(e|ed|es|ing)\b"), r"yz\1"),
    (re.compile(r"(?<=[a-z])our\b"), "or"),
    (re.compile(r"(?<=[a-z])ours\b"), "ors"),
    (re.compile(r"(?<=[a-z])tre\b"), "ter"),
    (re.compile(r"(?<=[a-z])tres\b"), "ters"),
)
_SPELLING = {
    "programme": "program", "programmes": "programs", "cheque": "check", "cheques": "checks",
    "grey": "gray", "judgement": "judgment", "modelling": "modeling", "modelled": "modeled",
    "travelling": "traveling", "cancelled": "canceled", "labelled": "labeled", "fulfil": "fulfill",
    "catalogue": "catalog", "defence": "defense", "licence": "license", "enrolment": "enrollment",
    "paediatric": "pediatric", "oestrogen": "estrogen", "haemoglobin": "hemoglobin", "anaemia": "anemia",
}  # fmt: skip
_SYNONYM = {
    "y": "year", "yr": "year", "yrs": "year", "years": "year", "fy": "year", "wk": "week", "w": "week",
    "wks": "week", "weeks": "week", "q": "quarter", "qtr": "quarter", "mo": "month", "mth": "month",
    "pct": "percent", "%": "percent", "per": "percent", "avg": "average", "mean": "average", "no": "number",
    "num": "number", "qty": "quantity", "&": "and", "incl": "including", "vs": "versus", "v": "versus",
    "util": "utilization", "mgmt": "management", "rev": "revenue", "amt": "amount", "approx": "approximately",
    "std": "standard", "sd": "standard deviation", "pts": "points", "pp": "points", "ci": "confidence interval",
    "dc": "distribution center", "dcs": "distribution center", "ssb": "solid state battery",
    "d&a": "depreciation amortization", "da": "depreciation amortization", "capex": "capital expenditure",
    "nwc": "net working capital", "usd": "us", "fcf": "free cash flow", "pik": "payment in kind", "mezz": "mezzanine",
    "mezzanine": "mezzanine", "cheque": "check", "sqls": "sql", "mqls": "mql", "ebit": "ebit",
}  # fmt: skip
STOPWORDS = frozenset(
    "a an the of and or to in on for by with at from as is are be was were this that these those it its "
    "our we you your their they them into over under per than then so such also which who whom whose".split()
)


@lru_cache(maxsize=65536)
def spelling(word: str) -> str:
    """American spelling of one lower-case word (utilisation → utilization, colour → color)."""
    if word in _SPELLING:
        return _SPELLING[word]
    for pattern, repl in _BRITISH:
        word = pattern.sub(repl, word)
    return word


def _stem(word: str) -> str:
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss") and not word.endswith("us"):
        return word[:-1]
    return word


_LETTERS_DIGITS = re.compile(r"([a-z]+)(\d+(?:\.\d+)?)|(\d+(?:\.\d+)?)([a-z]+)")


@lru_cache(maxsize=65536)
def label_tokens(label: str) -> tuple[str, ...]:
    """A label as comparable tokens: 'Year 1' / 'Y1' / 'year1' / 'YR-1' → ('year', '1')."""
    s = label.replace("%", " percent ").replace("&", " and ")
    s = re.sub(r"([a-z])([A-Z])", r"\1 \2", s).lower()  # camelCase
    out: list[str] = []
    words: list[str] = []
    for raw in re.split(r"[^a-z0-9.]+", s):
        # 'year1' is 'year 1' and '10x' is '10 x', but a code such as 'b2c' or 'b2b2c' stays whole.
        m = _LETTERS_DIGITS.fullmatch(raw)
        words += [g for g in m.groups() if g] if m else [raw]
    for raw in words:
        w = raw.strip(".")
        if not w or w in STOPWORDS:
            continue
        if w[0].isdigit() and "." in w:
            w = w.rstrip("0").rstrip(".")  # '9.0' and '9' name the same thing
        w = _SYNONYM.get(w, w)
        for part in w.split():
            part = _stem(spelling(part))
            if part and part not in STOPWORDS:
                out.append(part)
    return tuple(out)


@lru_cache(maxsize=262144)
def label_similarity(a: str, b: str) -> float:
    """0..1: how surely two labels name the same thing (token overlap after normalisation)."""
    ta, tb = label_tokens(a), label_tokens(b)
    if not ta or not tb:
        return 0.0
    if ta == tb:
        return 1.0
    sa, sb = set(ta), set(tb)
    digits_a = {t for t in sa if t[:1].isdigit()}
    digits_b = {t for t in sb if t[:1].isdigit()}
    if digits_a != digits_b:
        return 0.0  # 'Year 1' is never 'Year 2'
    inter = len(sa & sb)
    if not inter:
        joined_a, joined_b = "".join(ta), "".join(tb)
        return 0.8 if joined_a == joined_b else 0.0
    return inter / len(sa | sb) * 0.5 + inter / min(len(sa), len(sb)) * 0.5


@lru_cache(maxsize=65536)
def text_words(text: str) -> tuple[str, ...]:
    """Words of a text for term matching: lower case, American spelling, singular, no punctuation."""
    out = []
    for raw in re.split(r"[^\w%$€£.+-]+", text.lower()):
        w = raw.strip(".,;:!?()[]\"'`*_#>|+-")
        if w:
            out.append(_stem(spelling(w)))
    return tuple(out)


def normal_text(text: str) -> str:
    """A text as space-separated normalised words (for whole-word phrase search)."""
    return " " + " ".join(text_words(text)) + " "


def has_term(term: str, text_norm: str) -> bool:
    """Whether ``term`` occurs in a text normalised by ``normal_text`` (as whole words, open-ended last word)."""
    words = text_words(term)
    if not words:
        return False
    phrase = " ".join(words)
    if f" {phrase} " in text_norm:
        return True
    # Open end: 'licens' finds 'licensing', 'risk' finds 'risky'.
    return re.search(r" " + re.escape(phrase), text_norm) is not None


# --------------------------------------------------------------------------- numbers said in words

_UNITS_W = {
    "zero": 0, "oh": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
    "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19,
}  # fmt: skip
_TENS_W = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90}
_BIG_W = {"thousand": 1e3, "million": 1e6, "billion": 1e9}
_NUMWORD = "|".join([*_UNITS_W, *_TENS_W, "hundred", *_BIG_W, "point", "and", "a", "half", "quarter"])
_SPOKEN = re.compile(
    r"(?<![\w-])(?:(?:" + _NUMWORD + r")(?:[\s-]+|(?=[^\w-])|$))+", re.I
)


def _spoken_value(words: list[str]) -> tuple[float, str] | None:
    """(value, scale word) of a run of number words, or None when it is not a number."""
    total = 0.0
    current = 0.0
    seen = False
    decimals = ""
    in_decimals = False
    scale_word = ""
    i = 0
    while i < len(words):
        w = words[i]
        if in_decimals:
            if w in _UNITS_W and _UNITS_W[w] < 10:
                decimals += str(_UNITS_W[w])
                i += 1
                continue
            in_decimals = False
        if w in _UNITS_W:
            current += _UNITS_W[w]
            seen = True
        elif w in _TENS_W:
            current += _TENS_W[w]
            seen = True
        elif w == "hundred":
            current = (current or 1) * 100
            seen = True
        elif w == "point" and seen:
            in_decimals = True
        elif w == "half" and i > 0 and words[i - 1] == "a":
            current += 0.5
        elif w == "quarter" and i > 0 and words[i - 1] == "a":
            current += 0.25
        elif w in _BIG_W and seen:
            value = current + (float("0." + decimals) if decimals else 0.0)
            decimals = ""
            if w == "thousand":
                total += value * 1e3
            else:
                scale_word = w  # keep millions and billions as a unit word: '57.5 million'
                total += value
                current = 0.0
                break
            current = 0.0
        elif w in ("and", "a"):
            pass
        else:
            return None
        i += 1
    value = total + current + (float("0." + decimals) if decimals else 0.0)
    if not seen:
        return None
    return value, scale_word


def spoken_to_digits(text: str) -> str:
    """Numbers said in words written as figures: 'twenty-four point six percent' → '24.6 percent',
    'fifty-seven and a half million' → '57.5 million', 'twelve times' → '12 times'."""

    def repl(m: re.Match[str]) -> str:
        raw = m.group(0)
        words = [w for w in re.split(r"[\s-]+", raw.lower()) if w]
        while words and words[-1] in ("and", "a", "point"):
            words.pop()
        lead = []
        while words and words[0] in ("and", "a"):
            lead.append(words.pop(0))
        if lead and lead[-1] == "a" and words and words[0] in ("hundred", "thousand", "million", "billion"):
            lead.pop()  # 'a hundred' is one hundred
        if not words:
            return raw
        got = _spoken_value(words)
        if got is None:
            return raw
        value, scale = got
        figure = f"{value:.10g}"
        trail = raw[len(raw.rstrip()) :]
        return (" ".join(lead) + " " if lead else "") + figure + (f" {scale}" if scale else "") + trail

    return _SPOKEN.sub(repl, text)
