"""Commands about scenarios and schemas: list-scenarios, export-dataset, play-script, schema."""

from __future__ import annotations

import difflib
import importlib
import json
from pathlib import Path
from typing import Any

import click

from modylbench.simulator._cli_common import deprecated_spelling
from modylbench.simulator._errors import UserError

scenarios_option = click.option(
    "--scenarios",
    "scenario_paths",
    multiple=True,
    type=click.Path(path_type=Path),
    metavar="PATH",
    help="A .jsonl/.json file or a folder of them; adds or replaces scenarios by id. Repeatable.",
)


seed_option = click.option(
    "--seed", type=click.IntRange(min=0), default=0, show_default=True,
    help="Instance of the built-in scenarios: 0 is the published data; another seed builds fresh data "
         "(same script, new numbers, ground truth recomputed). Scenario files are not changed by it.",
)


def load_all(paths: tuple[Path, ...], seed: int = 0, only: list[str] | None = None) -> dict[str, Any]:
    """Built-in scenarios (instance ``seed``; ``only`` these ids) plus those from --scenarios paths.

    Raises ScenarioLoadError, e.g. for a built-in that cannot build instance ``seed``.
    """
    from modylbench.scenarios import resolve_scenarios

    return resolve_scenarios(paths, seed=seed, only=only)


def pick(scenarios: dict[str, Any], scenario_id: str) -> Any:
    """One scenario by id, or a one-line error listing the ids there are: the built-ins (``scenarios`` may hold
    only the ones asked for: a fresh instance is built only when needed) and those the files added."""
    if scenario_id not in scenarios:
        from modylbench.scenarios import builtin_ids

        known = [*builtin_ids(), *sorted(set(scenarios) - set(builtin_ids()))]
        close = difflib.get_close_matches(scenario_id, known, n=1)
        hint = f"did you mean {close[0]!r}? " if close else ""
        raise UserError(f"unknown scenario {scenario_id!r}; {hint}known: {', '.join(known)}")
    return scenarios[scenario_id]


@click.command("play-script", short_help="Print a scenario as a play script (Markdown, turn by turn) for review.")
@click.argument("scenario_id")
@scenarios_option
@seed_option
@click.option("--output", type=click.Path(path_type=Path, dir_okay=False), default=None, metavar="FILE",
              help="Write the play script to FILE instead of printing it.")
def play_script_command(scenario_id: str, scenario_paths: tuple[Path, ...], seed: int, output: Path | None) -> None:
    """Print a scenario as a play script: per turn who speaks, on which channel, what is shown or pushed and what
    is expected (facts, reference answer and edits), then its edge cases and deliverables. The built-ins' are
    committed under docs/scenarios/."""
    from modylbench.scenarios import builtin_ids, play_script

    only = [scenario_id] if scenario_id in builtin_ids() else []
    text = play_script(pick(load_all(scenario_paths, seed=seed, only=only), scenario_id))
    if output is None:
        click.echo(text, nl=False)
    else:
        output.write_text(text, encoding="utf-8")
        click.echo(f"wrote {output}", err=True)


@click.command("list-scenarios", short_help="List the available scenarios.")
@scenarios_option
@click.option("--json", "as_json", is_flag=True, help="Print a JSON array instead of a table.")
def list_scenarios(scenario_paths: tuple[Path, ...], as_json: bool) -> None:
    """List the available scenarios: id, vertical, title, tier, turns, edge cases, channels."""
    scenarios = load_all(scenario_paths)
    rows = [
        {
            "scenario_id": s.scenario_id,
            "vertical": s.vertical,
            "title": s.title,
            "quality_tier": s.quality_tier,
            "turns": len(s.turns),
            "edge_cases": len(s.edge_cases),
            "channels": s.channels_used,
            "expected_outputs": len(s.expected_outputs),
            "timeout_minutes": s.timeout_minutes,
        }
        for s in scenarios.values()
    ]
    if as_json:
        click.echo(json.dumps(rows, indent=2))
        return
    from rich.console import Console
    from rich.table import Table

    console = Console()
    if not console.is_terminal:
        console = Console(width=200)  # piped output: never cut ids
    table = Table(title=f"{len(rows)} scenarios", title_justify="left")
    for col, kw in (("scenario_id", {"style": "bold", "no_wrap": True}), ("vertical", {}), ("title", {}), ("tier", {}),
                    ("turns", {"justify": "right"}), ("edge cases", {"justify": "right"}), ("channels", {})):
        table.add_column(col, **kw)  # type: ignore[arg-type]
    for r in rows:
        table.add_row(r["scenario_id"], r["vertical"], r["title"], r["quality_tier"], str(r["turns"]),
                      str(r["edge_cases"]), ", ".join(r["channels"]))
    if rows:
        table.add_section()
        table.add_row("total", "", "", "", str(sum(r["turns"] for r in rows)),
                      str(sum(r["edge_cases"] for r in rows)), "")
    console.print(table)


def hard_rows(scenario: Any) -> list[dict[str, Any]]:
    """One stand-alone row per edge case: the scenario's frame, the turns leading to it, the turn."""
    from modylbench.scenarios import persona_text, to_public

    public = to_public(scenario)
    rows = []
    for edge in scenario.edge_cases:
        idx = next((t.turn_index for t in scenario.turns if t.edge_case == edge.name),
                   next(t.turn_index for t in scenario.turns if t.human_utterance.strip() == edge.human_utterance.strip()))
        rows.append({
            "edge_case_id": f"{scenario.scenario_id}::{edge.name}",
            "scenario_id": scenario.scenario_id,
            "vertical": scenario.vertical,
            "title": scenario.title,
            "human_persona": persona_text(scenario.human_persona),
            "context": scenario.context,
            "meeting_goal": scenario.meeting_goal,
            "quality_tier": scenario.quality_tier,
            "turn_index": idx,
            "edge_case": public["edge_cases"][scenario.edge_cases.index(edge)],
            "preceding_turns": public["turns"][max(0, idx - 5):idx],
            "turn": public["turns"][idx],
        })
    return rows


# Hugging Face datasets layout: config name -> (file under OUT_DIR, what one row is). One split each ("test"):
# the two files have different columns, so they cannot share a config.
DATASET_CONFIGS: dict[str, tuple[str, str]] = {
    "scenarios": ("data/test.jsonl", "one meeting scenario (public format, with its products' templates)"),
    "edge_cases": ("data/test_hard.jsonl", "one edge case, stand-alone: the scenario's frame, the five turns "
                                           "before it and the turn itself"),
}


def _json_type(x: Any) -> str:
    return {bool: "bool", int: "int", float: "float", str: "string", list: "list", dict: "object"}.get(
        type(x), "null" if x is None else type(x).__name__)


def dataset_card(rows: dict[str, list[dict[str, Any]]], seed: int) -> str:
    """README.md for the exported folder: YAML front matter naming each config's data files (what
    ``datasets.load_dataset(DIR, CONFIG)`` reads), then what the rows are and their columns."""
    yaml = ["---", "pretty_name: ModylBench", "license: apache-2.0", "language:", "- en", "size_categories:",
            "- n<1K", "tags:", "- agents", "- meetings", "- multimodal", "- benchmark", "configs:"]
    for i, (name, (path, _)) in enumerate(DATASET_CONFIGS.items()):
        yaml += [f"- config_name: {name}", "  data_files:", "  - split: test", f"    path: {path}"]
        if i == 0:
            yaml.append("  default: true")
    yaml.append("---")
    body = [
        "",
        "# ModylBench",
        "",
        "Scenarios of professional meetings in which an AI agent takes part: a scripted persona speaks, "
        "chats, shares its screen and pushes files, and the agent builds work products (spreadsheets, "
        "documents, charts, dashboards) in a shared document. Exported by `modylbench export-dataset`"
        + (f" as instance `--seed {seed}` of the built-in scenarios." if seed else " (the published instance)."),
        "",
        "```python",
        "from datasets import load_dataset",
        "",
    ]
    body += [f'{name} = load_dataset("path/to/this/folder", "{name}", split="test")' for name in DATASET_CONFIGS]
    body += ["```", ""]
    for name, (path, what) in DATASET_CONFIGS.items():
        found = rows.get(name, [])
        body += [f"## `{name}` ({len(found)} rows, `{path}`)", "", f"Each row is {what}.", "",
                 "| column | type |", "|---|---|"]
        columns: dict[str, str] = {}
        for row in found:
            for key, value in row.items():
                if value is not None:
                    columns.setdefault(key, _json_type(value))
        body += [f"| `{key}` | {kind} |" for key, kind in columns.items()]
        body.append("")
    body += ["Scoring: `modylbench evaluate --responses responses.jsonl` scores an agent's answers to these "
             "scenarios (the public `responses.jsonl` format); see the project's docs/scoring.md.", ""]
    return "\n".join(yaml + body)


@click.command("export-dataset", short_help="Write the scenarios in the public dataset format.")
@click.option("--out", "out", type=click.Path(path_type=Path, file_okay=False), default=None, metavar="OUT_DIR",
              help="The dataset folder to write.")
@click.argument("out_dir", type=click.Path(path_type=Path, file_okay=False), required=False,
                callback=deprecated_spelling("export-dataset OUT_DIR (a positional folder)", "--out OUT_DIR"))
@scenarios_option
@seed_option
def export_dataset(out: Path | None, out_dir: Path | None, scenario_paths: tuple[Path, ...], seed: int) -> None:
    """Write the scenarios as a Hugging Face dataset folder: OUT_DIR/README.md (the dataset card),
    OUT_DIR/data/test.jsonl (config "scenarios") and OUT_DIR/data/test_hard.jsonl (config "edge_cases",
    one row per edge case).

    ``datasets.load_dataset(OUT_DIR, "scenarios")`` and ``(OUT_DIR, "edge_cases")`` load them. Each
    scenario carries its products' templates (what the agent is asked to deliver). With --seed N the
    built-in scenarios are exported as fresh instance N.
    """
    from modylbench.scenarios import to_public

    if out is not None and out_dir is not None and out != out_dir:
        raise UserError(f"export-dataset: two folders given ({out_dir} and --out {out}); give --out OUT_DIR only")
    out_dir = out or out_dir
    if out_dir is None:
        raise UserError("export-dataset: give the dataset folder: --out OUT_DIR")
    scenarios = load_all(scenario_paths, seed)
    rows = {"scenarios": [to_public(s) for s in scenarios.values()],
            "edge_cases": [row for s in scenarios.values() for row in hard_rows(s)]}
    for name, (rel, _) in DATASET_CONFIGS.items():
        target = out_dir / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        with target.open("w", encoding="utf-8") as fh:
            for row in rows[name]:
                fh.write(json.dumps(row, ensure_ascii=False) + "\n")
    (out_dir / "README.md").write_text(dataset_card(rows, seed), encoding="utf-8")
    scen, hard = (out_dir / DATASET_CONFIGS[k][0] for k in ("scenarios", "edge_cases"))
    click.echo(f"wrote {scen} ({len(rows['scenarios'])} scenarios), {hard} ({len(rows['edge_cases'])} edge cases) "
               f"and the dataset card {out_dir / 'README.md'}")


# name -> (module, attribute, kind): kind "model" has .model_json_schema(); "adapter" is a TypeAdapter.
SCHEMAS: dict[str, tuple[str, str, str]] = {
    "scenario": ("modylbench.scenarios", "Scenario", "model"),
    "record": ("modylbench.record", "EVENT_ADAPTER", "adapter"),
    "manifest": ("modylbench.record", "Manifest", "model"),
    "responses": ("modylbench.record", "ScenarioResponses", "model"),
    "scorecard": ("modylbench.scoring", "Scorecard", "model"),
}


def schema_json(name: str) -> dict[str, Any]:
    """The JSON Schema of one persisted type."""
    mod_name, attr, kind = SCHEMAS[name]
    try:
        obj = getattr(importlib.import_module(mod_name), attr)
    except (ImportError, AttributeError):
        raise UserError(f"schema {name!r} is not available in this build") from None
    schema: dict[str, Any] = obj.json_schema() if kind == "adapter" else obj.model_json_schema()
    schema.setdefault("title", name)
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    return schema


@click.command("schema", short_help="Print the JSON Schema of scenario, record, manifest, responses or scorecard.")
@click.argument("name", type=click.Choice(sorted(SCHEMAS)))
def schema(name: str) -> None:
    """Print the JSON Schema of a persisted type: scenario, record (one event), manifest, responses, scorecard."""
    click.echo(json.dumps(schema_json(name), indent=2, sort_keys=True))
