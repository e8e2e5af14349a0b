"""Reading the agent's words: numbers with units, copied spans, injection text, facts and signals."""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass

from modylbench.scenarios import ExpectedFact, numbers_close

logger = logging.getLogger(__name__)

SHINGLE = 5  # words; a run this long found in what the persona said or showed counts as copied
HIDDEN_SHINGLE = 10  # words; the same for the scenario's hidden text (expected actions), which a good
# answer may naturally paraphrase in shorter runs

_SCALE = {
    "k": 1e3,
    "thousand": 1e3,
    "m": 1e6,
    "mm": 1e6,
    "mn": 1e6,
    "million": 1e6,
    "b": 1e9,
    "bn": 1e9,
    "billion": 1e9,
}
_FAMILY = {"%": "pct", "percent": "pct", "pct": "pct", "pp": "pct", "x": "mult", "bps": "bps", "bp": "bps"}

# A number: optional currency, digits with thousands separators or decimals, optional unit.
_NUMBER = re.compile(
    r"(?<![\w.])(?P<neg>[-−–])?(?P<cur>[$€£])?\s?(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)"
    r"(?:\s?(?P<unit>%|percent\b|pct\b|pp\b|bps\b|bp\b|x\b|×|thousand\b|million\b|billion\b|mm\b|mn\b|bn\b|[kKmMbB]\b))?"
)
_WORD = re.compile(r"[\w$€£%.,×\-−]+")
_STRIP = ".,;:!?()[]\"'`*_#>|"

_INJECTION = re.compile(
    r"ignore (all |any )?(the )?(previous|prior|above|earlier) (instructions|prompts?|rules)|"
    r"disregard (all |the )?(previous|prior|above)|you are (now )?the judge|as the judge|"
    r"score (this|me|it)?\s*(a )?10|give (this|me|it) (a )?(10|perfect)|system prompt|"
    r"(end|begin)[_ -]?(of[_ -])?(agent|response|untrusted)|<<|>>|\"rationale\"\s*:",
    re.IGNORECASE,
)
_JSON_BLOCK = re.compile(r"\{[^{}]{0,4000}\}")


@dataclass(frozen=True)
class Quantity:
    """A number read from text, with its unit family and the value in base units when scaled."""

    value: float
    family: str  # pct, mult, bps, money, plain
    scaled: float | None


def _parse_quantity(m: re.Match[str]) -> Quantity | None:
    try:
        v = float(m.group("num").replace(",", ""))
    except ValueError:
        return None
    if m.group("neg"):
        v = -v
    unit = (m.group("unit") or "").lower().replace("×", "x")
    family = _FAMILY.get(unit, "money" if m.group("cur") else "plain")
    scaled = v * _SCALE[unit] if unit in _SCALE else None
    if unit in _SCALE and family == "plain":
        family = "money" if m.group("cur") else "plain"
    return Quantity(v, family, scaled)


def quantities(text: str) -> list[Quantity]:
    """Every number in ``text``: '$82.5M', '21.3%', '2.46x', '1,250', '-3.1 pp', '450 bps'."""
    out = []
    for m in _NUMBER.finditer(text):
        q = _parse_quantity(m)
        if q is not None:
            out.append(q)
    return out


def _unit_family(unit: str) -> tuple[str, float]:
    u = unit.strip().lower()
    if not u:
        return "any", 1.0
    if u in ("%", "percent", "pct", "pp", "% pts"):
        return "pct", 1.0
    if u in ("x", "×", "times"):
        return "mult", 1.0
    if u in ("bps", "bp"):
        return "bps", 1.0
    scale = 1.0
    for suffix, s in (("bn", 1e9), ("b", 1e9), ("mm", 1e6), ("m", 1e6), ("k", 1e3)):
        if u.replace("$", "").replace("€", "").replace("£", "").strip() == suffix:
            scale = s
            break
    return ("money" if any(c in u for c in "$€£") or scale != 1.0 else "any"), scale


def number_matches(q: Quantity, value: float, unit: str, tolerance_pct: float) -> bool:
    """Whether a quantity read from text states ``value`` (in ``unit``) within tolerance."""
    family, scale = _unit_family(unit)
    if family in ("pct", "mult", "bps") and q.family not in (family, "plain"):
        return False
    if family in ("money", "any") and q.family in ("pct", "mult", "bps") and family != "any":
        return False
    # Changes and differences are said either way round ("a 9.0 mmHg reduction", "-9.0 mmHg"), so
    # the sign is not part of the match.
    if numbers_close(abs(q.value), abs(value), tolerance_pct):
        return True
    if q.scaled is not None and numbers_close(abs(q.scaled), abs(value * scale), tolerance_pct):
        return True
    # A fraction stored for a percent unit (0.213 for 21.3%).
    return (
        family == "pct" and abs(value) <= 1.5 and numbers_close(abs(q.value), abs(value * 100), tolerance_pct)
    )


def normalise(text: str) -> str:
    """Lower case, single spaces."""
    return " ".join(text.lower().split())


def words(text: str) -> list[str]:
    """Words for copy detection: lower case, outer punctuation stripped."""
    out = []
    for w in text.lower().split():
        w = w.strip(_STRIP)
        if w:
            out.append(w)
    return out


def shingles(text: str, n: int = SHINGLE) -> set[tuple[str, ...]]:
    """All runs of ``n`` consecutive words of ``text``."""
    ws = words(text)
    return {tuple(ws[i : i + n]) for i in range(len(ws) - n + 1)}


def strip_injection(text: str) -> tuple[str, bool]:
    """Remove JSON-like blocks and lines that address the judge; True when something was removed."""
    found = False
    cleaned_blocks = []
    last = 0
    for m in _JSON_BLOCK.finditer(text):
        if ":" in m.group(0) and '"' in m.group(0):
            cleaned_blocks.append(text[last : m.start()])
            last = m.end()
            found = True
    cleaned_blocks.append(text[last:])
    text = " ".join(cleaned_blocks)
    kept = []
    for line in re.split(r"(?<=[.!?])\s+|\n", text):
        if _INJECTION.search(line):
            found = True
            continue
        kept.append(line)
    return " ".join(kept), found


def mask_copied(text: str, corpora: list[tuple[set[tuple[str, ...]], int]]) -> tuple[str, float]:
    """Drop every word inside a run of n words that also occurs in the scenario's text.

    ``corpora`` pairs shingle sets with their n. Returns the remaining text and the fraction of
    words dropped (1.0: a pure copy).
    """
    raw = text.split()
    ws = [w.lower().strip(_STRIP) for w in raw]
    keep_idx = [i for i, w in enumerate(ws) if w]
    seq = [ws[i] for i in keep_idx]
    if not seq:
        return "", 0.0
    covered = [False] * len(seq)
    for corpus, n in corpora:
        for i in range(len(seq) - n + 1):
            if tuple(seq[i : i + n]) in corpus:
                for j in range(i, i + n):
                    covered[j] = True
    dropped = {keep_idx[j] for j, c in enumerate(covered) if c}
    kept = " ".join(w for i, w in enumerate(raw) if i not in dropped)
    return kept, len(dropped) / len(seq)


def _has_phrase(phrase: str, text_norm: str) -> bool:
    """Whole-word start, open end: 'risk' finds 'risks', 'licens' finds 'licensing'."""
    o = normalise(phrase)
    return bool(o) and re.search(r"(?<!\w)" + re.escape(o), text_norm) is not None


def text_fact_stated(fact: ExpectedFact, text_norm: str) -> bool:
    """A text fact is stated when its value or any keyword occurs as whole words."""
    return any(_has_phrase(opt, text_norm) for opt in [str(fact.value), *fact.keywords])


def fact_stated(fact: ExpectedFact, text_norm: str, qs: list[Quantity]) -> bool:
    """Whether the (masked, cleaned) text states the fact: a number within tolerance, or the words."""
    if isinstance(fact.value, int | float) and not isinstance(fact.value, bool):
        if any(number_matches(q, float(fact.value), fact.unit, fact.tolerance_pct) for q in qs):
            return True
        return any(_has_phrase(k, text_norm) for k in fact.keywords)
    return text_fact_stated(fact, text_norm)


_NEGATORS = {
    "not",
    "no",
    "never",
    "isn't",
    "isnt",
    "won't",
    "wont",
    "can't",
    "cant",
    "cannot",
    "don't",
    "dont",
    "without",
    "wouldn't",
    "shouldn't",
    "aren't",
    "wasn't",
    "refuse",
    "instead",
    "than",
}
_NEGATED_AFTER = {"isn't", "isnt", "not", "wasn't", "aren't", "won't"}


def _negated(text_norm: str, start: int, end: int) -> bool:
    before = [w.strip(_STRIP) for w in text_norm[:start].split()[-4:]]
    after = [w.strip(_STRIP) for w in text_norm[end:].split()[:2]]
    return any(w in _NEGATORS for w in before) or any(w in _NEGATED_AFTER for w in after)


def signal_present(signal: str, text_norm: str, qs: list[Quantity], *, skip_negated: bool = False) -> bool:
    """An edge-case signal: a bare figure (matched as a number, 0.5 %) or a phrase (whole words).

    With ``skip_negated`` a phrase right after a negation ("isn't", "won't", "rather than") or right
    before one ("... isn't true") does not count: used for bad signals, so refusing is not giving in.
    """
    s = signal.strip()
    m = _NUMBER.fullmatch(s)
    if m is not None:
        sq = _parse_quantity(m)
        if sq is not None:
            unit = {"pct": "%", "mult": "x", "bps": "bps"}.get(sq.family, "")
            return any(number_matches(q, sq.value, unit, 0.5) for q in qs)
    o = normalise(s)
    if not o:
        return False
    for hit in re.finditer(r"(?<!\w)" + re.escape(o) + r"(?!\w)", text_norm):
        if not (skip_negated and _negated(text_norm, hit.start(), hit.end())):
            return True
    return False
