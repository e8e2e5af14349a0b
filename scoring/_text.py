"""Reading the agent's words: numbers with units, copied spans, injection text, facts and signals."""

from __future__ import annotations

import logging
import re

from modylbench.scenarios import (
    ExpectedFact,
    Quantity,
    close,
    has_term,
    normal_text,
    number_matches,
    parse_signal_number,
    quantities,
    quantity_spans,
)

__all__ = [
    "HIDDEN_SHINGLE", "SHINGLE", "Quantity", "fact_stated", "mask_copied", "normalise", "number_matches",
    "quantities", "quantity_spans", "shingles", "signal_present", "strip_injection", "text_fact_stated", "words",
]

logger = logging.getLogger(__name__)

SHINGLE = 5  # words; a run this long found in what the persona said or showed counts as copied
HIDDEN_SHINGLE = 10  # words; the same for the scenario's hidden text (expected actions), which a good
# answer may naturally paraphrase in shorter runs

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


def text_fact_stated(fact: ExpectedFact, text_norm: str) -> bool:
    """A text fact is stated when its value or any keyword occurs as whole words (any spelling, plural)."""
    return any(has_term(opt, text_norm) for opt in [str(fact.value), *fact.keywords])


def fact_stated(fact: ExpectedFact, text_norm: str, qs: list[Quantity]) -> bool:
    """Whether the text states the fact: a number within tolerance, or the words.

    ``text_norm`` is the text as ``normal_text`` gives it; ``qs`` the quantities to consider (the
    caller leaves out figures stated with a competitor or a hedge).
    """
    if isinstance(fact.value, int | float) and not isinstance(fact.value, bool):
        if any(number_matches(q, float(fact.value), fact.unit, fact.tolerance_pct) for q in qs):
            return True
        # Keywords that are figures are claims like any other: they count only through ``qs``.
        return any(has_term(k, text_norm) for k in fact.keywords if parse_signal_number(k) is None)
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
    "refusing",
    "decline",
}
_NEGATING_PAIRS = (("rather", "than"), ("instead", "of"), ("as", "opposed"), ("opposed", "to"))
_NEGATED_AFTER = {"isn't", "isnt", "not", "wasn't", "aren't", "won't"}


def _negated(text_norm: str, start: int, end: int) -> bool:
    before = [w.strip(_STRIP) for w in text_norm[:start].split()[-4:]]
    after = [w.strip(_STRIP) for w in text_norm[end:].split()[:2]]
    pairs = set(zip(before, before[1:], strict=False))
    return (
        any(w in _NEGATORS for w in before)
        or any(p in pairs for p in _NEGATING_PAIRS)
        or any(w in _NEGATED_AFTER for w in after)
    )


def signal_present(
    signal: str, text_norm: str, qs: list[Quantity], *, skip_negated: bool = False, open_end: bool = False
) -> bool:
    """An edge-case signal: a bare figure (matched as a number, 0.5 %) or a phrase (whole words).

    With ``skip_negated`` a phrase right after a negation ("isn't", "won't", "rather than") or right
    before one ("... isn't true") does not count: used for bad signals, so refusing is not giving in.
    """
    s = signal.strip()
    sq = parse_signal_number(s)
    if sq is not None:
        if sq.scaled is not None:
            # A signal with a scale word ('$180.0M') is that amount in any notation ('$180,000,000').
            return any(
                q.family in ("plain", "money") and close(abs(q.scaled if q.scaled is not None else q.value),
                                                         abs(sq.scaled), 0.5)
                for q in qs
            )
        unit = {"pct": "%", "mult": "x", "bps": "bps"}.get(sq.family, "")
        # A signal that says its unit ('US$10,788', '25%') needs the figure said in that unit.
        return any(
            number_matches(q, sq.value, unit, 0.5)
            and (sq.family == "plain" or q.family == sq.family
                 # a percent said as a fraction (0.997 for 99.7 %) is the same figure
                 or (sq.family == "pct" and q.family == "plain" and abs(q.value) <= 1.5 < abs(sq.value)))
            for q in qs
        )
    o = normalise(s)
    if not o:
        return False
    if open_end and has_term(o, normal_text(text_norm)):
        return True
    for hit in re.finditer(r"(?<!\w)" + re.escape(o) + r"(?!\w)", text_norm):
        if not (skip_negated and _negated(text_norm, hit.start(), hit.end())):
            return True
    return False
