"""What makes two sessions different, and the one folder name that says it: ``run``, ``sweep`` and the pytest
API name session folders here, and resume reuses a folder only when its manifest records the same key."""

from __future__ import annotations

import hashlib
import re
from dataclasses import MISSING, asdict, dataclass, fields
from pathlib import Path
from typing import Any

from modylbench.personas import DEFAULT_ANSWERER
from modylbench.record import CLEAN_NETWORK, Manifest, SessionFolder, fit_name

MANIFEST_KEY = "session"
"""The manifest entry that records a session's key (``SessionKey.manifest_entry``; ``Manifest.session``)."""

_SAFE = re.compile(r"[^A-Za-z0-9._-]+")
_SLUG_CHARS = 48


def agent_slug(name: str, spec: str | None = None) -> str:
    """A folder-safe, readable, bounded form of an agent's name; a short hash of (spec, name) keeps apart the
    agents a slug would merge (two commands, a renamed built-in, a long ``llm/MODEL@URL``)."""
    spec = name if spec is None else spec
    slug = _SAFE.sub("-", name).strip("-.") or "agent"
    if slug == name == spec and len(slug) <= _SLUG_CHARS:
        return slug
    digest = hashlib.sha256(f"{spec}\0{name}".encode()).hexdigest()[:8]
    return f"{slug[: _SLUG_CHARS - 9]}-{digest}"



def network_slug(network: str) -> str:
    """A session's network (a built-in profile's name, or a custom profile's canonical spec) as a folder-name part:
    ``mobile`` as is, ``loss=2%,delay=40ms`` as ``loss_2pct_delay_40ms``; a spec too long for that is cut and a
    short hash keeps it apart from the others it would merge with."""
    slug = _SAFE.sub("_", network.replace("%", "pct")).strip("_.") or "custom"
    if len(slug) <= _SLUG_CHARS:
        return slug
    return f"{slug[: _SLUG_CHARS - 9]}-{hashlib.sha256(network.encode()).hexdigest()[:8]}"


@dataclass(frozen=True)
class SessionKey:
    """One session's configuration as far as it changes what is played: scenario, agent, transport, network,
    slice (turns), instance (seed) and trial."""

    scenario_id: str
    agent: str
    """The ``--agent`` value (``oracle``, ``cmd:…``, ``py:…``)."""
    agent_name: str
    """The agent's name in the scorecard (``--agent-name``, else derived from ``agent``)."""
    transport: str
    turns: int | None
    """The first N turns; None: the whole meeting."""
    seed: int
    trial: int
    network: str = CLEAN_NETWORK
    """The network profile the packets crossed (``NetworkProfile.key``: a built-in's name or a custom profile's
    canonical spec); ``clean`` when nothing impaired them. Keys recorded before it existed read as clean."""
    answerer: str = DEFAULT_ANSWERER
    """Who worded the persona's answers: ``offline``, or the ``--persona-llm`` spec. Keys recorded before it
    existed read as offline."""

    @property
    def name(self) -> str:
        """The session folder's name:
        ``<scenario>__<agent>__<transport>[__net-<network>][__persona-<llm>]__<turns>__seed<S>__t<T>``; the network
        part only when it is not clean, the persona part only with --persona-llm (so older names stay)."""
        turns = "all" if self.turns is None else f"turns{self.turns}"
        agent = agent_slug(self.agent_name, self.agent)
        net = "" if self.network == CLEAN_NETWORK else f"__net-{network_slug(self.network)}"
        if self.answerer != DEFAULT_ANSWERER:  # an offline persona keeps the name it had before LLM answerers
            net += f"__persona-{network_slug(self.answerer)}"
        # fit_name: a long scenario id with a long agent name still fits the file system (hash-shortened).
        return fit_name(f"{self.scenario_id}__{agent}__{self.transport}{net}__{turns}__seed{self.seed}__t{self.trial}")

    def folder(self, out: Path) -> Path:
        return out / self.name

    def manifest_entry(self) -> dict[str, Any]:
        """What the session's manifest records under ``session``: the name and every field of the key."""
        return {"name": self.name, **asdict(self)}


def session_folders(out: Path, **match: Any) -> list[Path]:
    """The session folders directly under ``out`` whose recorded key has the given fields (e.g.
    ``agent_name="echo"``), in name order: how a test or a script finds a session without spelling its name."""
    found = []
    for folder in sorted(p for p in out.iterdir() if p.is_dir()) if out.is_dir() else []:
        manifest = SessionFolder(folder).read_manifest()
        key = (manifest.session if manifest is not None else None) or {}
        if manifest is not None and all(key.get(k) == v for k, v in match.items()):
            found.append(folder)
    return found


_DEFAULTS = {f.name: f.default for f in fields(SessionKey) if f.default is not MISSING}


def recorded_key(manifest: Manifest | None) -> dict[str, Any] | None:
    """The session key a manifest records (``session``, else an older sweep's ``sweep_cell``), a field added to
    the key later (``network``) read as its default; None when it records none."""
    if manifest is None:
        return None
    # sweep_cell: folders a sweep wrote before the key had a name of its own.
    recorded = manifest.session if manifest.session is not None else manifest.sweep_cell
    if recorded is None:
        return None
    return {**_DEFAULTS, **recorded}


def recorded_difference(manifest: Manifest | None, wanted: dict[str, Any], scenario_hash: str) -> str | None:
    """How the session a manifest records differs from the key ``wanted`` (a ``manifest_entry``) playing a
    scenario of ``scenario_hash``; None when it is the same session (what resume may reuse)."""
    recorded = recorded_key(manifest)
    if recorded is None:
        return "its manifest records no session key (an older version wrote it)"
    diffs = [f"{k} {recorded.get(k)!r}, not {v!r}" for k, v in wanted.items()
             if k != "name" and k in recorded and recorded.get(k) != v]
    diffs += [f"no {k}" for k in wanted if k not in recorded and k != "agent_name"]
    if manifest is not None and manifest.scenario_hash not in (None, scenario_hash):
        diffs.append("another version of the scenario (its scenario_hash differs)")
    return "; ".join(diffs) or None
