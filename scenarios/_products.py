"""Apply expected mutations to plain-JSON product contents (reference solutions, oracle agent)."""

from __future__ import annotations

import copy
from typing import Any

from modylbench.scenarios._pointer import delete_at, set_at
from modylbench.scenarios._schema import ExpectedMutation

_REMOVALS = {"delete_row", "delete_column", "delete_section", "remove_chart_series", "remove_widget", "delete", "remove_key", "remove_list_item"}


def mutation_value(m: ExpectedMutation) -> Any:
    """The JSON value a mutation writes: the full ``value`` if given, else ``expected_value``."""
    return copy.deepcopy(m.value) if m.value is not None else m.expected_value


def apply_mutation(contents: dict[str, Any], m: ExpectedMutation) -> None:
    """Apply one mutation in place to ``contents`` (product_id → content)."""
    if m.mutation_type == "create":
        contents[m.product_id] = mutation_value(m) if m.value is not None else {}
        return
    if m.product_id not in contents:
        contents[m.product_id] = {}
    if m.mutation_type in _REMOVALS:
        contents[m.product_id] = delete_at(contents[m.product_id], m.path)
    else:
        contents[m.product_id] = set_at(contents[m.product_id], m.path, mutation_value(m))


def apply_mutations(mutations: list[ExpectedMutation], start: dict[str, Any] | None = None) -> dict[str, Any]:
    """Contents after applying ``mutations`` in order to a copy of ``start``."""
    contents = copy.deepcopy(start) if start else {}
    for m in mutations:
        apply_mutation(contents, m)
    return contents
