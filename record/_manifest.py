"""``manifest.json``: what a session ran, with what, and the hash its record was sealed at.

Written when the meeting starts (``complete`` false) and again when it ends; ``modylbench schema manifest``
prints its JSON Schema (committed in docs/schemas/manifest.json).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

MANIFEST_VERSION = 1
"""Version of the manifest's shape; a folder written before the manifest had one reads as 1."""


class Manifest(BaseModel):
    """One session's manifest. Keys this version does not know (a later version's) are kept as they are."""

    model_config = ConfigDict(extra="allow")

    manifest_version: int = Field(default=MANIFEST_VERSION, description="Version of this shape.")
    modylbench_version: str | None = Field(default=None, description="Version of the package that ran it.")
    git_commit: str | None = Field(default=None, description="Commit of the checkout that ran it; unknown from a copy.")
    scenario_id: str | None = Field(default=None, description="Scenario played.")
    scenario_hash: str | None = Field(default=None, description="Hash of the scenario as played (its version).")
    agent: str | None = Field(default=None, description="The agent's name as the meeting knew it.")
    agent_kind: str | None = Field(default=None, description="builtin, cmd, py or external.")
    agent_spec: str | None = Field(default=None, description="The agent as given (--agent).")
    agent_process: dict[str, Any] | None = Field(default=None, description="A cmd:/py: agent's process: "
                                                 "command, exit, output files.")
    transport: str | None = Field(default=None, description="webrtc or inproc.")
    speed: float | None = Field(default=None, description="--speed: times real time on the in-process clock.")
    judges: list[str] = Field(default_factory=list, description="The panel the run scored with.")
    seed: int = Field(default=0, description="Instance of the scenario (--seed; 0: the published data).")
    seeds: dict[str, Any] = Field(default_factory=dict, description="Seeds of the parts drawn (scenario: its own).")
    speech: dict[str, Any] | None = Field(default=None, description="Speech engine and voice of the persona.")
    asr: str | None = Field(default=None, description="Speech recognition used (--asr), or null.")
    network: dict[str, Any] | None = Field(default=None, description="Network profile and its seed (WebRTC); "
                                           "null in process.")
    session: dict[str, Any] | None = Field(default=None, description="The session key: its folder name and "
                                           "every field (what resume compares).")
    sweep_cell: dict[str, Any] | None = Field(default=None, description="The sweep cell it ran as (older "
                                              "sweeps: the key before it had a name of its own).")
    node: dict[str, Any] | None = Field(default=None, description="Machine that ran it (sweeps).")
    turns_planned: int | None = Field(default=None, description="Turns scheduled.")
    started_wall_time: float | None = Field(default=None, description="Wall time the meeting started.")
    complete: bool = Field(default=False, description="The meeting ended and its record was sealed.")
    ended_wall_time: float | None = Field(default=None, description="Wall time it ended.")
    meeting_seconds: float | None = Field(default=None, description="Meeting-clock seconds it lasted.")
    termination_reason: str | None = Field(default=None, description="How it ended (a closed set).")
    detail: str | None = Field(default=None, description="What ended it, in words.")
    turns_played: int | None = Field(default=None, description="Turns played.")
    doc_updates: int | None = Field(default=None, description="Shared-document updates recorded.")
    record_last_hash: str | None = Field(default=None, description="Hash of the record's last event: the seal "
                                         "replay checks the record against.")
    media: dict[str, Any] | None = Field(default=None, description="Media statistics of the link.")

    @property
    def sealed_hash(self) -> str | None:
        """The hash the record was sealed at; None until the meeting is complete."""
        return self.record_last_hash if self.complete else None
