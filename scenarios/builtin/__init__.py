"""The built-in scenarios (six one-to-one meetings, two multi-party ones): each module generates its data, solves it and builds the Scenario.

``build(scenario_id, seed)`` gives one: seed 0 from the committed data files in ``scenarios/data/``
(``python -m modylbench.scenarios.builtin`` rebuilds them; a test checks they are current), any
other seed a fresh instance from the module's ``build(seed)``.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import json
import logging
from importlib import resources
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

from modylbench.scenarios._kit import Identity

if TYPE_CHECKING:
    from modylbench.scenarios._schema import Scenario

logger = logging.getLogger(__name__)



def _declared() -> dict[str, Identity]:
    """Every builder folder in this package, by the identity its ``identity.toml`` declares (read without
    importing the builders: they load numpy, scipy and solvers), in their listed order."""
    from modylbench.scenarios._kit import IDENTITY_FILE, identity

    found: dict[str, Identity] = {}
    for folder in sorted(resources.files(__name__).iterdir(), key=lambda f: f.name):
        if folder.is_dir() and (folder / IDENTITY_FILE).is_file():
            found[folder.name] = identity(f"{__name__}.{folder.name}")
    ordered = sorted(found.items(), key=lambda kv: (kv[1].position, kv[0]))
    ids = [i.scenario_id for _, i in ordered]
    if len(set(ids)) != len(ids):
        raise ValueError(f"two built-in builders declare the same scenario_id: {sorted(ids)}")
    return dict(ordered)


_FOLDERS = _declared()
IDENTITIES: dict[str, Identity] = {i.scenario_id: i for i in _FOLDERS.values()}
"""scenario_id -> what the scenario is, as its builder declares it (``<folder>/identity.toml``)."""
BUILDERS: dict[str, str] = {i.scenario_id: folder for folder, i in _FOLDERS.items()}
"""scenario_id -> the builder's folder (a module in this package with a ``build(seed: int = 0) -> Scenario``)."""
BUILTIN_IDS: tuple[str, ...] = tuple(BUILDERS)


def builder(scenario_id: str) -> ModuleType:
    """The module that builds ``scenario_id``. Every built-in ships one: a missing module is a broken
    installation, reported as such (one line), never skipped."""
    from modylbench.scenarios._loader import ScenarioLoadError

    name = f"{__name__}.{BUILDERS[scenario_id]}"
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name != name:
            raise
        raise ScenarioLoadError(
            [
                f"{scenario_id}: its builder {name} is missing from this installation of modylbench "
                f"({Path(__file__).parent}); reinstall it (`pip install .` in the checkout)"
            ]
        ) from None


def generate(scenario_id: str, seed: int = 0) -> Scenario:
    """Run one built-in scenario's generator and solver; seed 0 is the published instance.

    Raises ``ScenarioLoadError`` (one line) when the scenario's builder cannot draw instance ``seed``.
    """
    from modylbench.scenarios._loader import ScenarioLoadError

    module = builder(scenario_id)
    takes_seed = "seed" in inspect.signature(module.build).parameters
    if seed != 0 and not takes_seed:
        raise ScenarioLoadError(
            [
                f"{scenario_id}: this built-in scenario cannot build fresh instances yet "
                f"(its builder takes no seed); run it with --seed 0"
            ]
        )
    try:
        scenario: Scenario = module.build(seed=seed) if takes_seed else module.build()
    except (ValueError, RuntimeError) as exc:
        raise ScenarioLoadError(
            [f"{scenario_id}: cannot build the instance for seed {seed}: {exc}"]
        ) from None
    except (LookupError, ArithmeticError) as exc:  # a builder's bug for this draw: one line, not a traceback
        raise ScenarioLoadError(
            [f"{scenario_id}: cannot build the instance for seed {seed} (a bug in its builder: "
             f"{type(exc).__name__}: {exc})"]
        ) from None
    # Generated from the knowledge: the facts only an answer reveals, the figures the persona checks.
    from modylbench.scenarios._knowledge import designate_pushback, link_withheld

    scenario = designate_pushback(link_withheld(scenario))
    if broken := IDENTITIES[scenario_id].breaks(scenario):
        raise ValueError(f"builder {BUILDERS[scenario_id]} built a scenario unlike its identity: {'; '.join(broken)}")
    if seed != 0 and scenario.seed != seed:
        # The instance is named by the seed it was asked for, so that --seed N reproduces it.
        scenario = scenario.model_copy(update={"seed": seed})
    return scenario


def data_text(scenario: Scenario) -> str:
    """The committed data file's text for ``scenario``: the full model as readable nested JSON (the public
    format, with its stringified ``metadata``, is written only by ``export-dataset``)."""
    return (
        json.dumps(scenario.model_dump(mode="json", exclude_defaults=True), indent=1, ensure_ascii=False)
        + "\n"
    )


def committed(scenario_id: str) -> Scenario | None:
    """The published instance from the package's committed data file (None if the file is missing)."""
    from modylbench.scenarios._loader import parse_scenario

    f = resources.files("modylbench.scenarios") / "data" / f"{scenario_id}.json"
    if not f.is_file():
        logger.debug(
            "built-in scenario %s has no data file; run `python -m modylbench.scenarios.builtin`", scenario_id
        )
        return None
    return parse_scenario(json.loads(f.read_text("utf-8")), f"{scenario_id}.json")


def build(scenario_id: str, seed: int = 0) -> Scenario:
    """A built-in scenario: seed 0 is today's committed data file; another seed builds a fresh instance
    (same script, new numbers, ground truth recomputed)."""
    if scenario_id not in BUILDERS:
        raise KeyError(scenario_id)
    if seed == 0:
        scenario = committed(scenario_id)
        if scenario is not None:
            return scenario
    return generate(scenario_id, seed)


@functools.lru_cache(maxsize=16)
def _published(scenario_id: str) -> Scenario:
    # Shared and read-only: the callers below only compare against it.
    return build(scenario_id, 0)


def instance_of(scenario: Scenario) -> int | None:
    """Which instance of a built-in scenario this is: the ``--seed`` it was built with (0: the published
    data); None for a scenario from a file (data, the same whatever the seed)."""
    seed = scenario.metadata.get("instance_seed")
    if isinstance(seed, int):
        return seed
    if scenario.scenario_id not in BUILDERS:
        return None
    return 0 if scenario.seed == _published(scenario.scenario_id).seed else scenario.seed


def published_counterpart(scenario: Scenario) -> Scenario | None:
    """The published instance (seed 0's export) of a fresh built-in instance: what is public about it. None
    for the published instance itself and for scenario files."""
    return _published(scenario.scenario_id) if instance_of(scenario) else None
