"""Values compared by meaning, parts found by labels, work counted when it was done (issue 13's rules)."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from modylbench.record import ScenarioResponses
from modylbench.scenarios import MISSING, Aligner, Scenario, load_builtin, same_number
from modylbench.scoring import make_judges, score
from modylbench.scoring._text import normalise, quantities, signal_present

from .scoring_helpers import load_fixture_maker

MAKER = load_fixture_maker()
LBO = next(s for s in load_builtin() if s.scenario_id == "financial_analyst_lbo_model")


def _card(line: dict[str, Any], sc: Scenario = LBO) -> Any:
    return score([ScenarioResponses.model_validate(line)], {sc.scenario_id: sc}, make_judges(["offline"])).scenarios[0]


@pytest.mark.parametrize(
    ("got", "want", "unit"),
    [
        ("$57.5M", 57.5, "$M"),
        (57_500_000, 57.5, "$M"),
        ("57,500,000", 57.5, ""),
        ("$57,500,000", 57.5, "$M"),
        (0.246, 24.6, "%"),
        ("24.6%", 24.6, ""),
        ("24.6 per cent", 24.6, "%"),
        ("2.9x", 2.9, "x"),
        ({"value": 57.5, "formula": "=B2*1.15"}, 57.5, "$M"),
        (57.6, 57.5, "$M"),  # within the 0.5 % tolerance
    ],
)
def test_same_number_in_any_notation(got: Any, want: float, unit: str) -> None:
    assert same_number(got, want, unit)


@pytest.mark.parametrize(("got", "want", "unit"), [("$5.75M", 57.5, "$M"), (0.246, 2.46, "x"), ("29.5%", 24.6, "%")])
def test_wrong_numbers_stay_wrong(got: Any, want: float, unit: str) -> None:
    assert not same_number(got, want, unit)


def test_rows_found_by_label_and_layout() -> None:
    ref = {"income_statement": {"year1": {"revenue": 57.5}}, "sections": [{"title": "Key risks", "text": "x"}]}
    got = {
        "Income Statement": {"Revenue": {"Y1": 57_500_000}},
        "sections": [{"title": "Summary", "text": "a"}, {"title": "Key Risks", "text": "b"}],
    }
    a = Aligner(ref, got)
    assert a.resolve(("income_statement", "year1", "revenue")) == 57_500_000
    assert a.resolve(("sections", "0", "text")) == "b"
    assert a.resolve(("income_statement", "year2", "revenue")) is MISSING


def test_instead_and_than_do_not_negate_a_concession() -> None:
    text = normalise("Fine, we use 11.5x instead. That is higher than policy.")
    assert signal_present("use 11.5x", text, quantities(text), skip_negated=True)
    refusal = normalise("Rather than use 11.5x, we keep 11.0x.")
    assert not signal_present("use 11.5x", refusal, quantities(refusal), skip_negated=True)


def _correct() -> dict[str, Any]:
    return MAKER.correct(LBO)


def test_a_late_dump_earns_no_trajectory_however_finely_split() -> None:
    line = _correct()
    last = len(LBO.turns) - 1
    late = copy.deepcopy(line)
    for m in late["mutation_trajectory"]:
        m["turn_index"] = last
    card = _card(late)
    assert card.mutation_metrics.on_time < card.mutation_metrics.expected * 0.1
    assert card.modylbench_score < 6.0
    assert any("no_trajectory_evidence" in p.flags for p in card.products)


def test_edits_within_the_window_count_and_later_ones_do_not() -> None:
    line = _correct()
    two_late = copy.deepcopy(line)
    for m in two_late["mutation_trajectory"]:
        m["turn_index"] = min(m["turn_index"] + 2, len(LBO.turns) - 1)
    five_late = copy.deepcopy(line)
    for m in five_late["mutation_trajectory"]:
        m["turn_index"] = min(m["turn_index"] + 5, len(LBO.turns) - 1)
    on_time = _card(two_late).mutation_metrics
    late = _card(five_late).mutation_metrics
    assert on_time.on_time > 0.9 * on_time.expected - 10
    assert late.late > late.on_time


def test_snapshot_only_in_the_last_turn_is_late() -> None:
    line = _correct()
    line.pop("mutation_trajectory")
    line["turns"][-1]["work_products"] = line["work_products"]
    card = _card(line)
    assert card.mutation_metrics.source == "snapshots"
    assert card.mutation_metrics.on_time == 0
    assert card.modylbench_score < 6.0


def test_public_products_without_ids_are_found_by_type_and_description() -> None:
    line = _correct()
    for wp in line["work_products"]:
        wp.pop("product_id")
    card = _card(line)
    assert not any("not_delivered" in p.flags for p in card.products)
    assert card.destination is not None and card.destination > 9.0


def test_turns_scheduled_scores_the_slice() -> None:
    line = _correct()
    line["turns"] = [t for t in line["turns"] if t["turn_index"] < 2]
    line["mutation_trajectory"] = [m for m in line["mutation_trajectory"] if m["turn_index"] < 2]
    line["work_products"] = []
    line["turns_scheduled"] = 2
    card = _card(line)
    assert card.modylbench_score is not None and card.modylbench_score >= 9.0
    assert len(card.turns) == 2 and card.turns_scheduled == 2


def test_leaving_early_is_scored_against_the_scheduled_meeting() -> None:
    """turns_played says how long the agent stayed, never what it is scored against."""
    line = _correct()
    line["turns"] = [t for t in line["turns"] if t["turn_index"] < 2]
    line["mutation_trajectory"] = [m for m in line["mutation_trajectory"] if m["turn_index"] < 2]
    line["work_products"] = []
    line["turns_played"] = 2
    line["termination_reason"] = "agent_disconnected"
    card = _card(line)
    assert len(card.turns) == len(LBO.turns)
    assert card.modylbench_score is not None and card.modylbench_score < 6.0
    assert "turns_unanswered" in card.flags


def test_silent_journey_is_floored() -> None:
    line = _correct()
    for t in line["turns"]:
        t["agent_response"] = "Done."
        t["chat_messages"] = []
    card = _card(line)
    assert "silent_journey" in card.flags
    assert card.modylbench_score <= 4.0


def test_hedged_and_competing_figures_are_not_claims() -> None:
    line = _correct()
    t = next(t for t in LBO.turns if any(isinstance(f.value, float) and f.unit == "%" for f in t.expected_facts))
    f = next(f for f in t.expected_facts if isinstance(f.value, float) and f.unit == "%")
    good = _card(line).turns[t.turn_index].dimensions["context_accuracy"]
    hedged = copy.deepcopy(line)
    hedged["turns"][t.turn_index]["agent_response"] = f"It is {f.value:.1f}% or maybe {f.value * 1.2 + 1:.1f}%."
    hedged["turns"][t.turn_index]["chat_messages"] = []
    spray = copy.deepcopy(hedged)
    spray["turns"][t.turn_index]["agent_response"] = "It is " + ", ".join(
        f"{f.value * k:.1f}%" for k in (0.8, 0.9, 1.0, 1.1, 1.2)
    )
    assert _card(hedged).turns[t.turn_index].dimensions["context_accuracy"] < good
    assert _card(spray).turns[t.turn_index].dimensions["context_accuracy"] < good


def test_evaluate_scores_against_the_seeded_instance(tmp_path: Any) -> None:
    import json

    from click.testing import CliRunner

    from modylbench.scenarios.builtin import build
    from modylbench.scoring._cli import evaluate

    fresh = build(LBO.scenario_id, 1)
    path = tmp_path / "responses.jsonl"
    path.write_text(json.dumps(MAKER.correct(fresh)) + "\n", encoding="utf-8")
    scores = {}
    for seed in (1, 0):
        out = tmp_path / f"card{seed}.json"
        res = CliRunner().invoke(
            evaluate, ["--responses", str(path), "--output", str(out), "--seed", str(seed), "--quiet"]
        )
        assert res.exit_code == 0, res.output
        scores[seed] = json.loads(out.read_text())["scenarios"][0]["modylbench_score"]
    assert scores[1] >= 9.0 > 6.0 > scores[0]


_ONES = "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen".split()
_TENS = "_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()


def _say_int(n: int) -> str:
    if n < 20:
        return _ONES[n]
    if n < 100:
        return _TENS[n // 10] + ("" if n % 10 == 0 else "-" + _ONES[n % 10])
    rest = n % 100
    return _ONES[n // 100] + " hundred" + ("" if rest == 0 else " and " + _say_int(rest))


def test_figures_said_in_words_count() -> None:
    from modylbench.scenarios import spoken_to_digits

    assert spoken_to_digits("twenty-four point six percent") == "24.6 percent"
    assert spoken_to_digits("fifty-seven and a half million") == "57.5 million"
    assert spoken_to_digits("a hundred and eighty million") == "180 million"
    line = _correct()
    t = next(
        t for t in LBO.turns
        if len(t.expected_facts) >= 2
        and all(isinstance(f.value, float) and 0 < f.value < 1000 and f.unit in ("%", "x", "$M") for f in t.expected_facts)
    )
    spoken = []
    for f in t.expected_facts:
        whole, tenth = divmod(round(abs(float(f.value)) * 10), 10)
        unit = {"%": "percent", "x": "times", "$M": "million dollars"}[f.unit]
        spoken.append(f"{f.description} is {_say_int(int(whole))} point {_ONES[tenth]} {unit}.")
    in_words = copy.deepcopy(line)
    in_words["turns"][t.turn_index]["agent_response"] = " ".join(spoken)
    in_words["turns"][t.turn_index]["chat_messages"] = []
    got = _card(in_words).turns[t.turn_index]
    assert "facts " + f"{len(t.expected_facts)}/{len(t.expected_facts)}" in got.judges[0].rationale


def test_a_line_that_names_its_instance_is_scored_against_it(tmp_path: Any) -> None:
    import json

    from click.testing import CliRunner

    from modylbench.scenarios.builtin import build
    from modylbench.scoring._cli import evaluate

    line = MAKER.correct(build(LBO.scenario_id, 1))
    line["scenario_seed"] = 1
    path = tmp_path / "responses.jsonl"
    path.write_text(json.dumps(line) + "\n", encoding="utf-8")
    out = tmp_path / "card.json"
    res = CliRunner().invoke(evaluate, ["--responses", str(path), "--output", str(out), "--quiet"])
    assert res.exit_code == 0, res.output
    assert json.loads(out.read_text())["scenarios"][0]["modylbench_score"] >= 9.0
    mixed = tmp_path / "mixed.jsonl"
    other = dict(line, scenario_seed=2, model_id="other")
    mixed.write_text(json.dumps(line) + "\n" + json.dumps(other) + "\n", encoding="utf-8")
    res = CliRunner().invoke(evaluate, ["--responses", str(mixed), "--output", str(out), "--quiet"])
    assert res.exit_code == 2 and "different instances" in res.output


def test_natural_comparisons_are_not_hedges() -> None:
    """A fact said beside another figure the scenario knows, or with everyday caution, still counts."""
    pct_facts = [
        (t, f) for t in LBO.turns for f in t.expected_facts
        if isinstance(f.value, float) and f.unit == "%" and 5 < f.value < 100
    ]
    t, f = pct_facts[0]
    other = next(
        float(g.value) for u in LBO.turns for g in u.expected_facts
        if isinstance(g.value, float) and g.unit == "%" and 0.5 < g.value / f.value < 2 and abs(g.value - f.value) > 1
    )
    line = _correct()
    for text in (
        f"It comes to {f.value:.1f}%, which could be a concern next to the {other:.1f}% we had before.",
        f"It moved from {other:.1f}% to {f.value:.1f}% once the change went in.",
    ):
        said = copy.deepcopy(line)
        said["turns"][t.turn_index]["agent_response"] = text
        said["turns"][t.turn_index]["chat_messages"] = []
        verdict = _card(said).turns[t.turn_index].judges[0]
        assert verdict.rationale.startswith("facts ") and "facts 0/" not in verdict.rationale, (text, verdict.rationale)
        assert "hedged" not in verdict.flags
