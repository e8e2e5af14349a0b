"""Find the reference's parts in an agent's product, whatever the agent called them, and compare by meaning.

A reference path such as ``/income_statement/year1/revenue`` is looked up in the agent's content
token by token: the same key when it is there; otherwise the key whose name or ``label`` / ``title``
/ ``name`` field is most similar to the reference key or its template label ('Year 1', 'Y1',
'year1'); document sections by heading, chart series by name and chart values through the
category they stand for. Leaves are then compared by meaning (``_values``): numbers in any usual
notation and scale, text by the figures and terms it must contain.
"""

from __future__ import annotations

import logging
from typing import Any

from modylbench.scenarios._pointer import PointerError, parse_pointer
from modylbench.scenarios._templates import ProductTemplate, unit_of_key
from modylbench.scenarios._values import (
    cell_value,
    committed_quantities,
    figure_stated,
    has_term,
    label_similarity,
    normal_text,
    quantities,
    same_number,
    text_words,
)

logger = logging.getLogger(__name__)

MISSING: Any = object()
LABEL_MATCH = 0.6  # least label similarity that pairs an agent key with a reference key
_NAME_FIELDS = ("label", "title", "name")
MAX_WALK = 200_000  # leaves visited in one comparison (agent content is bounded, this bounds the walk too)
MAX_CANDIDATES = 500  # agent keys or parts considered for pairing by label in one container


def _names(key: str, node: Any) -> list[str]:
    out = [key]
    if isinstance(node, dict):
        for f in _NAME_FIELDS:
            v = node.get(f)
            if isinstance(v, str) and v.strip():
                out.append(v)
    return out


_NAME_KEYS = {"label", "unit", "title", "name", "type"}


def has_work(x: Any) -> bool:
    """A part holds work: a figure or text outside its name, label and unit fields (not just a template)."""
    stack = [cell_value(x)]
    seen = 0
    while stack and seen < MAX_WALK:
        v = stack.pop()
        seen += 1
        if isinstance(v, dict):
            stack.extend(cell_value(y) for k, y in v.items() if k not in _NAME_KEYS)
        elif isinstance(v, list):
            stack.extend(cell_value(y) for y in v)
        elif v not in (None, ""):
            return True
    return False


def _best_pairs(
    want: list[tuple[Any, list[str]]], have: list[tuple[Any, list[str]]], worked: set[Any] | None = None
) -> dict[Any, Any]:
    """One-to-one pairing of wanted ids to available ids by the best label similarity (greedy).

    Parts in ``worked`` (holding the agent's work) are taken before empty ones: a template row left
    empty beside the agent's own row for the same thing is not what the agent delivered.
    """
    scored = []
    for wi, wnames in want:
        for hi, hnames in have:
            s = max(label_similarity(a, b) for a in wnames for b in hnames)
            if s >= LABEL_MATCH:
                scored.append((worked is not None and hi in worked, s, wi, hi))
    scored.sort(key=lambda x: (not x[0], -x[1]))
    out: dict[Any, Any] = {}
    taken: set[Any] = set()
    for _w, _s, wi, hi in scored:
        if wi in out or hi in taken:
            continue
        out[wi] = hi
        taken.add(hi)
    return out


class Aligner:
    """Resolves reference paths in one agent product (cached per container pair)."""

    def __init__(self, reference: Any, content: Any, template: ProductTemplate | None = None):
        self.reference = reference
        self.content = content
        self.template = template
        self._pairs: dict[tuple[int, int], dict[Any, Any]] = {}
        self._views: dict[tuple[str, str], Any] = {}
        self._labels: dict[tuple[str, ...], str] = {}
        self._units: dict[tuple[str, ...], str] = {}
        if template is not None:
            for s in template.sheets:
                self._labels[(s.key,)] = s.label
                for r in s.rows:
                    self._labels[(s.key, r.key)] = r.label
                    if r.unit:
                        self._units[(s.key, r.key)] = r.unit
                for c in s.columns:
                    self._labels[(s.key, "*", c.key)] = c.label
                    if c.unit:
                        self._units[(s.key, "*", c.key)] = c.unit
            for w in template.widgets:
                self._labels[("widgets", w.key)] = w.label
            for k in template.keys:
                self._labels[(k.key,)] = k.label

    # ------------------------------------------------------------------ units

    def unit_at(self, tokens: tuple[str, ...]) -> str:
        """The unit the reference value at ``tokens`` is in, as far as the template and names tell."""
        if len(tokens) >= 3:
            u = self._units.get((tokens[0], tokens[1])) or self._units.get((tokens[0], "*", tokens[2]))
            if u:
                return u
        if len(tokens) >= 2 and (tokens[0], tokens[1]) in self._units:
            return self._units[(tokens[0], tokens[1])]
        for tok in reversed(tokens):
            u = unit_of_key(tok)
            if u:
                return u
        return ""

    # ------------------------------------------------------------------ resolution

    def _label(self, prefix: tuple[str, ...], key: str) -> str | None:
        lab = self._labels.get((*prefix, key))
        if lab is None and len(prefix) == 2:
            lab = self._labels.get((prefix[0], "*", key))
        return lab

    def _dict_pairs(self, prefix: tuple[str, ...], ref: dict[str, Any], got: dict[str, Any]) -> dict[Any, Any]:
        ck = (id(ref), id(got))
        hit = self._pairs.get(ck)
        if hit is not None:
            return hit
        exact = {k: k for k in ref if k in got and has_work(got[k])}
        want = []
        for k, v in ref.items():
            if k in exact:
                continue
            names = _names(k, v)
            lab = self._label(prefix, k)
            if lab:
                names.append(lab)
            want.append((k, names))
        have = [(k, _names(str(k), v)) for k, v in got.items() if k not in exact.values()][:MAX_CANDIDATES]
        pairs = dict(exact)
        if want and have:
            worked = {k for k, _n in have if has_work(got[k])}
            pairs.update(_best_pairs(want, have, worked))
        for k in ref:
            if k not in pairs and k in got and got[k] not in pairs.values():
                pairs[k] = k  # the template's own part, empty: nothing better stands for it
        self._pairs[ck] = pairs
        return pairs

    def _extra_pair(self, prefix: tuple[str, ...], tok: str, got: dict[str, Any], pairs: dict[Any, Any]) -> Any:
        """The agent's key for a part the final reference no longer has (a row made, then removed)."""
        taken = set(pairs.values())
        names = [tok]
        lab = self._label(prefix, tok)
        if lab:
            names.append(lab)
        have = [(k, _names(str(k), v)) for k, v in got.items() if k not in taken][:MAX_CANDIDATES]
        return _best_pairs([(tok, names)], have, {k for k, _n in have if has_work(got[k])}).get(tok)

    def _list_pairs(self, ref: list[Any], got: list[Any]) -> dict[Any, Any]:
        ck = (id(ref), id(got))
        hit = self._pairs.get(ck)
        if hit is not None:
            return hit
        titled = any(isinstance(x, dict) and any(isinstance(x.get(f), str) for f in _NAME_FIELDS) for x in ref)
        pairs: dict[Any, Any] = {}
        if titled:
            want = [(i, _names("", x)[1:]) for i, x in enumerate(ref) if isinstance(x, dict)]
            have = [(j, _names("", x)[1:]) for j, x in enumerate(got[:MAX_CANDIDATES]) if isinstance(x, dict)]
            worked = {j for j, _n in have if has_work(got[j])}
            pairs = _best_pairs([w for w in want if w[1]], [h for h in have if h[1]], worked)
            taken = set(pairs.values())
            # Parts whose heading was reworded past recognition pair by what they say.
            scored = []
            for i, x in enumerate(ref):
                if i in pairs or not isinstance(x, dict) or not isinstance(x.get("text"), str):
                    continue
                for j, y in enumerate(got[:MAX_CANDIDATES]):
                    if j in taken or not isinstance(y, dict) or not isinstance(y.get("text"), str):
                        continue
                    c = text_credit(x["text"], y["text"]) if x["text"].strip() and y["text"].strip() else 0.0
                    if c >= 0.5:
                        scored.append((c, i, j))
            for _c, i, j in sorted(scored, key=lambda t: -t[0]):
                if i not in pairs and j not in taken:
                    pairs[i] = j
                    taken.add(j)
            for i, _x in enumerate(ref):
                if i not in pairs and i < len(got) and i not in taken:
                    pairs[i] = i  # an untitled or unmatched part falls back to its position
                    taken.add(i)
        elif all(isinstance(x, str) for x in ref) and all(isinstance(x, str) for x in got):
            pairs = _best_pairs(
                [(i, [x]) for i, x in enumerate(ref)], [(j, [x]) for j, x in enumerate(got[:MAX_CANDIDATES])]
            )
            taken = set(pairs.values())
            for i in range(len(ref)):
                if i not in pairs and i < len(got) and i not in taken:
                    pairs[i] = i
        else:
            pairs = {i: i for i in range(min(len(ref), len(got)))}
        self._pairs[ck] = pairs
        return pairs

    def resolve(self, tokens: tuple[str, ...] | list[str]) -> Any:
        """The agent's value standing where the reference has ``tokens``, or MISSING."""
        return self.locate(tokens)[0]

    def locate(self, tokens: tuple[str, ...] | list[str]) -> tuple[Any, tuple[str, ...] | None]:
        """(the agent's value where the reference has ``tokens``, the agent's own path to it) or (MISSING, None)."""
        tokens = tuple(tokens)
        got, path = self._walk(tokens, self.content)
        if got is MISSING and len(tokens) == 3:
            got, path = self._walk(tokens, self._transposed(tokens[0]))
            if path is not None:
                path = (path[0], path[2], path[1])
        return got, path

    def resolve_pointer(self, pointer: str) -> Any:
        """``resolve`` for an RFC 6901 pointer."""
        try:
            return self.resolve(tuple(parse_pointer(pointer)))
        except PointerError:
            return MISSING

    def _transposed(self, sheet: str) -> Any:
        """The content with one sheet laid out the other way round (line items as rows, years as columns)."""
        key = ("T", sheet)
        hit = self._views.get(key)
        if hit is not None:
            return hit
        view: Any = MISSING
        ref, got = self.reference, self.content
        if isinstance(ref, dict) and isinstance(got, dict) and isinstance(ref.get(sheet), dict):
            k = sheet if sheet in got else self._dict_pairs((), ref, got).get(sheet)
            node = got.get(k) if k is not None else None
            if isinstance(node, dict) and all(isinstance(r, dict) for r in node.values()):
                flipped: dict[str, dict[str, Any]] = {}
                for rk, row in node.items():
                    for ck, cell in row.items():
                        flipped.setdefault(str(ck), {})[str(rk)] = cell
                view = {**got, k: flipped}
        self._views[key] = view
        return view

    def _walk(self, tokens: tuple[str, ...], content: Any) -> tuple[Any, tuple[str, ...] | None]:
        if content is MISSING:
            return MISSING, None
        ref, got = self.reference, content
        categories: tuple[list[Any], list[Any]] | None = None
        if isinstance(ref, dict) and isinstance(got, dict):
            rc, gc = ref.get("categories"), got.get("categories")
            if isinstance(rc, list) and isinstance(gc, list):
                categories = (rc, gc)
        prefix: tuple[str, ...] = ()
        agent_path: list[str] = []
        for tok in tokens:
            ref_next: Any = MISSING
            if isinstance(ref, dict):
                ref_next = ref.get(tok, MISSING)
            elif isinstance(ref, list) and tok.isdigit() and int(tok) < len(ref):
                ref_next = ref[int(tok)]
            if isinstance(got, dict):
                if isinstance(ref, dict):
                    pairs = self._dict_pairs(prefix, ref, got)
                    k = pairs.get(tok)
                    if k is None and tok not in ref:
                        k = tok if tok in got and has_work(got[tok]) else self._extra_pair(prefix, tok, got, pairs)
                        if k is None and tok in got:
                            k = tok
                elif tok in got:
                    k = tok
                else:
                    return MISSING, None
                if k is None:
                    return MISSING, None
                nxt = got[k]
                agent_path.append(str(k))
            elif isinstance(got, list):
                if not tok.isdigit():
                    return MISSING, None
                i = int(tok)
                if prefix[-1:] == ("values",) and categories is not None:
                    j = self._list_pairs(categories[0], categories[1]).get(i)
                elif isinstance(ref, list):
                    j = self._list_pairs(ref, got).get(i)
                else:
                    j = i
                if j is None or j >= len(got):
                    return MISSING, None
                nxt = got[j]
                agent_path.append(str(j))
            else:
                return MISSING, None
            got, ref = nxt, ref_next
            prefix = (*prefix, tok)
        return cell_value(got), tuple(agent_path)


# --------------------------------------------------------------------------- comparison


def figure_credit(want: str, got: str) -> float:
    """Fraction of the figures in ``want`` that ``got`` states (by meaning); 1.0 when ``want`` has none."""
    ref_qs = quantities(want)
    if not ref_qs:
        return 1.0
    got_qs = committed_quantities(got)
    return sum(1 for q in ref_qs if figure_stated(q, got_qs, 0.6)) / len(ref_qs)


def _terms(text: str) -> set[str]:
    """The distinctive terms of a reference text: names, acronyms, words with digits, long content words."""
    out: set[str] = set()
    raw = text.replace("\n", " ").split()
    for i, w in enumerate(raw):
        core = w.strip(".,;:!?()[]\"'`*")
        if not core:
            continue
        sentence_start = i == 0 or raw[i - 1].endswith((".", "!", "?", ":"))
        named = (core[:1].isupper() and not sentence_start) or (core.isupper() and len(core) > 1)
        if named or any(ch.isdigit() for ch in core):
            words = text_words(core)
            if words and not words[0][:1].isdigit():
                out.add(" ".join(words))
    return out


def text_credit(want: str, got: str) -> float:
    """Credit for a text value: its figures and its distinctive terms, not its wording."""
    if not want.strip():
        return 1.0 if not got.strip() else 0.5
    wn, gn = normal_text(want), normal_text(got)
    if wn == gn:
        return 1.0
    if len(text_words(want)) <= 4 and label_similarity(want, got) >= LABEL_MATCH:
        return 1.0  # a short label said another way: 'Y1' for 'Year 1', 'Wk 14' for 'W14'
    figures = figure_credit(want, got)
    terms = _terms(want)
    if terms:
        term_rate = sum(1 for t in terms if has_term(t, gn)) / len(terms)
    else:
        ws = {w for w in text_words(want) if len(w) > 3}
        term_rate = min(1.0, (len(ws & set(text_words(got))) / len(ws)) / 0.5) if ws else 1.0
    if not quantities(want):
        if len(text_words(want)) <= 4:
            return max(label_similarity(want, got), term_rate if len(text_words(want)) > 1 else 0.0)
        return term_rate
    return figures * (0.6 + 0.4 * min(1.0, term_rate / 0.7))


def value_credit(want: Any, got: Any, unit: str = "", tolerance_pct: float = 0.5) -> float:
    """0..1: how far ``got`` states the reference value ``want`` (a leaf) by meaning."""
    want, got = cell_value(want), cell_value(got)
    if want is None or want == "":
        return 1.0  # nothing to state (a blank or cleared cell): whatever stands there is fine
    if got is MISSING or got is None or got == "":
        return 0.0
    if isinstance(want, bool):
        if isinstance(got, bool):
            return 1.0 if got is want else 0.0
        if isinstance(got, str):
            return 1.0 if got.strip().lower() in (("true", "yes", "y") if want else ("false", "no", "n")) else 0.0
        return 0.0
    if isinstance(want, int | float):
        return 1.0 if same_number(got, float(want), unit, tolerance_pct) else 0.0
    if isinstance(want, str):
        if isinstance(got, int | float) and not isinstance(got, bool):
            qs = quantities(want)
            return 1.0 if len(qs) == 1 and same_number(got, qs[0].value, unit, tolerance_pct) else 0.0
        if isinstance(got, str):
            return text_credit(want, got)
        return 0.0
    return 1.0 if want == got else 0.0


def leaves(v: Any, path: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], Any]]:
    """Every leaf of a plain-JSON value with its path (cells count as leaves; iterative and bounded)."""
    out: list[tuple[tuple[str, ...], Any]] = []
    stack: list[tuple[tuple[str, ...], Any]] = [(path, v)]
    while stack and len(out) < MAX_WALK:
        p, x = stack.pop()
        x = cell_value(x)
        if isinstance(x, dict) and x:
            stack.extend(((*p, str(k)), y) for k, y in reversed(list(x.items())))
        elif isinstance(x, list) and x:
            stack.extend(((*p, str(i)), y) for i, y in reversed(list(enumerate(x))))
        elif not isinstance(x, dict | list):
            out.append((p, x))
    return out
