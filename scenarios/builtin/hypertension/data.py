"""Hypertension trial: the generator's inputs, the patient-level EDC exports it draws and the files the persona pushes.

``TrialInputs()`` is the committed trial; ``draw_inputs`` draws fresh ones around it. ``Exports.of`` turns inputs
into the locked export v1 and data management's re-export v2 (three late visits, one site's week 12 in kPa).
"""

from __future__ import annotations

import csv
import io
import logging
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from modylbench.scenarios._schema import DataFile

logger = logging.getLogger(__name__)

# The generator seed of the committed scenario (build(0)); other instances draw their own.
SEED = 20250642
# Multiple imputation has its own fixed seed so the sensitivity analysis is reproducible by anyone.
MI_SEED = 2207
MI_IMPUTATIONS = 20

ARMS: tuple[str, ...] = ("placebo", "low_dose", "high_dose")
ARM_LABEL = {"placebo": "Placebo", "low_dose": "CVT-207 10 mg", "high_dose": "CVT-207 40 mg"}
SITE_IDS: tuple[str, ...] = ("S01", "S02", "S03", "S04", "S05", "S06")
VISITS: tuple[int, ...] = (0, 4, 8, 12)
# The site whose week-12 readings the re-export writes in kPa.
KPA_SITE = "S04"
# The site whose PI says his new automated cuffs read low (they do, a little).
CUFF_SITE = "S03"
MMHG_PER_KPA = 7.50062
RESPONDER_SBP = 140.0
AGE_CUT = 65
COLUMNS: tuple[str, ...] = (
    "patient_id",
    "site",
    "arm",
    "age",
    "sex",
    *(f"{bp}_w{v}" for v in VISITS for bp in ("sbp", "dbp")),
)
# Week-12 queries data management resolves late: the visits v2 adds.
LATE_ENTRIES = 3


# --------------------------------------------------------------------------- inputs


@dataclass(frozen=True)
class TrialInputs:
    """Every raw input of the generator; the defaults are the committed scenario (build(0))."""

    data_seed: int = SEED
    mi_seed: int = MI_SEED
    # Sizes are multiples of 6 because randomisation is in permuted blocks of 6 within site.
    site_sizes: dict[str, int] = field(
        default_factory=lambda: {"S01": 72, "S02": 66, "S03": 60, "S04": 54, "S05": 60, "S06": 48}
    )
    # True placebo-inclusive mean SBP change at week 12 (mmHg) the generator draws around.
    true_w12: dict[str, float] = field(
        default_factory=lambda: {"placebo": -6.0, "low_dose": -8.5, "high_dose": -14.5}
    )
    # True placebo-inclusive mean DBP change at week 12 (mmHg).
    dbp_true_w12: dict[str, float] = field(
        default_factory=lambda: {"placebo": -3.0, "low_dose": -4.25, "high_dose": -7.25}
    )
    # Share of the week-12 effect reached by each visit.
    time_fraction: dict[int, float] = field(default_factory=lambda: {4: 0.55, 8: 0.85, 12: 1.0})
    # Per-visit dropout hazard at SBP 150, rising by dropout_slope per mmHg above it.
    dropout_hazard: dict[str, float] = field(
        default_factory=lambda: {"placebo": 0.050, "low_dose": 0.045, "high_dose": 0.050}
    )
    dropout_slope: float = 0.04
    age_mean: float = 58.0
    age_sd: float = 9.0
    female_share: float = 0.46
    sbp0_mean: float = 153.0
    sbp0_sd: float = 8.0
    dbp0_mean: float = 91.0
    dbp0_per_sbp0: float = 0.45
    dbp0_sd: float = 6.0
    # Between-patient spread of the response and visit-to-visit noise (scale of a t5), mmHg.
    response_sd: float = 6.5
    dbp_response_sd: float = 4.0
    visit_sd: float = 6.0
    dbp_visit_sd: float = 4.0
    # Regression to the mean: share of the baseline excess lost by follow-up in every arm.
    sbp_rtm: float = 0.22
    dbp_rtm: float = 0.15
    # How low the CUFF_SITE cuffs read (mmHg).
    cuff_offset: float = -2.5


def _vary(rng: np.random.Generator, x: float, rel: float) -> float:
    """x scaled by a uniform factor in [1 - rel, 1 + rel], kept to four significant figures."""
    return float(f"{x * rng.uniform(1 - rel, 1 + rel):.4g}")


def draw_inputs(rng: np.random.Generator) -> TrialInputs:
    """A fresh set of inputs around the committed ones (relative ranges unless a level is bounded)."""
    base = TrialInputs()
    sizes = {
        site: 6 * max(5, round(size / 6 * rng.uniform(0.8, 1.2))) for site, size in base.site_sizes.items()
    }
    placebo = _vary(rng, base.true_w12["placebo"], 0.2)
    # The 10 mg effects are a starting point: instance() moves them until the 10 mg p-values fit the story.
    low_gap = _vary(rng, base.true_w12["low_dose"] - base.true_w12["placebo"], 0.3)
    high_gap = _vary(rng, base.true_w12["high_dose"] - base.true_w12["placebo"], 0.2)
    w4 = _vary(rng, base.time_fraction[4], 0.1)
    w8 = min(0.95, _vary(rng, base.time_fraction[8], 0.1))
    w12 = {"placebo": placebo, "low_dose": placebo + low_gap, "high_dose": placebo + high_gap}
    dbp_ratio = _vary(rng, 0.5, 0.2)
    return TrialInputs(
        data_seed=int(rng.integers(1, 2**31)),
        mi_seed=int(rng.integers(1000, 10000)),
        site_sizes=sizes,
        true_w12=w12,
        # DBP moves about half as much as SBP.
        dbp_true_w12={arm: round(dbp_ratio * change, 3) for arm, change in w12.items()},
        time_fraction={4: w4, 8: w8, 12: 1.0},
        dropout_hazard={arm: _vary(rng, hazard, 0.2) for arm, hazard in base.dropout_hazard.items()},
        dropout_slope=_vary(rng, base.dropout_slope, 0.2),
        age_mean=_vary(rng, base.age_mean, 0.08),
        age_sd=_vary(rng, base.age_sd, 0.2),
        female_share=_vary(rng, base.female_share, 0.1),
        # Baseline levels are bounded by the 140-179 mmHg entry criterion: a few mmHg, not percent.
        sbp0_mean=round(base.sbp0_mean + rng.uniform(-4.0, 4.0), 1),
        sbp0_sd=_vary(rng, base.sbp0_sd, 0.2),
        dbp0_mean=round(base.dbp0_mean + rng.uniform(-3.0, 3.0), 1),
        dbp0_per_sbp0=_vary(rng, base.dbp0_per_sbp0, 0.2),
        dbp0_sd=_vary(rng, base.dbp0_sd, 0.2),
        response_sd=_vary(rng, base.response_sd, 0.2),
        dbp_response_sd=_vary(rng, base.dbp_response_sd, 0.2),
        visit_sd=_vary(rng, base.visit_sd, 0.2),
        dbp_visit_sd=_vary(rng, base.dbp_visit_sd, 0.2),
        sbp_rtm=_vary(rng, base.sbp_rtm, 0.2),
        dbp_rtm=_vary(rng, base.dbp_rtm, 0.2),
        cuff_offset=_vary(rng, base.cuff_offset, 0.2),
    )


# --------------------------------------------------------------------------- patients


@dataclass
class Patient:
    """One randomised patient's record as the EDC export holds it (None = not recorded)."""

    patient_id: str
    site: str
    arm: str
    age: int
    sex: str
    sbp: dict[int, float | None] = field(default_factory=dict)
    dbp: dict[int, float | None] = field(default_factory=dict)

    def copy(self) -> Patient:
        """The same record with its own visit dictionaries."""
        return Patient(
            self.patient_id, self.site, self.arm, self.age, self.sex, dict(self.sbp), dict(self.dbp)
        )


def _clip(x: Any, lo: Any, hi: Any) -> Any:
    """np.clip for one number, without the array round trip (the generator calls it a thousand times)."""
    return min(max(x, lo), hi)


def _tenth(x: float) -> float:
    """A reading as the EDC stores it: one decimal."""
    return float(round(x, 1))


def simulate_trial(inp: TrialInputs | None = None) -> tuple[list[Patient], list[Patient]]:
    """(locked export v1, full trajectories) from the inputs' seed; v1 hides visits after dropout."""
    inp = inp or TrialInputs()
    rng = np.random.default_rng(inp.data_seed)
    full: list[Patient] = []
    enrolled = 0
    for site in SITE_IDS:
        arms: list[str] = []
        for _ in range(inp.site_sizes[site] // 6):
            block = list(ARMS) * 2
            rng.shuffle(block)
            arms += block
        # The CUFF_SITE cuffs read a little low across the board: a site effect randomisation handles.
        site_offset = inp.cuff_offset if site == CUFF_SITE else 0.0
        for arm in arms:
            enrolled += 1
            age = int(_clip(round(rng.normal(inp.age_mean, inp.age_sd)), 40, 79))
            sex = "F" if rng.random() < inp.female_share else "M"
            sbp0 = float(_clip(rng.normal(inp.sbp0_mean, inp.sbp0_sd), 140.0, 179.0)) + site_offset
            dbp0 = float(
                _clip(
                    inp.dbp0_mean + inp.dbp0_per_sbp0 * (sbp0 - inp.sbp0_mean) + rng.normal(0.0, inp.dbp0_sd),
                    70.0,
                    110.0,
                )
            )
            response = rng.normal(0.0, inp.response_sd)
            dbp_response = rng.normal(0.0, inp.dbp_response_sd)
            patient = Patient(
                f"CVT-{1000 + enrolled}", site, arm, age, sex, {0: _tenth(sbp0)}, {0: _tenth(dbp0)}
            )
            for visit in VISITS[1:]:
                frac = inp.time_fraction[visit]
                # Regression to the mean pulls high baselines down in every arm, placebo included.
                rtm = -inp.sbp_rtm * (sbp0 - inp.sbp0_mean)
                noise = inp.visit_sd * rng.standard_t(5) / math.sqrt(5 / 3)
                sbp = sbp0 + inp.true_w12[arm] * frac + rtm + response * frac + noise
                dbp_noise = inp.dbp_visit_sd * rng.standard_t(5) / math.sqrt(5 / 3)
                dbp = (
                    dbp0
                    + inp.dbp_true_w12[arm] * frac
                    - inp.dbp_rtm * (dbp0 - inp.dbp0_mean)
                    + dbp_response * frac
                    + dbp_noise
                )
                patient.sbp[visit] = _tenth(sbp)
                patient.dbp[visit] = _tenth(dbp)
            full.append(patient)
    locked: list[Patient] = []
    for patient in full:
        record = patient.copy()
        dropped = False
        for prev, visit in zip(VISITS[:-1], VISITS[1:], strict=True):
            last = record.sbp[prev]
            # Missing at random: uncontrolled patients are likelier to stop coming.
            if not dropped and last is not None:
                hazard = inp.dropout_hazard[patient.arm] * math.exp(inp.dropout_slope * (last - 150.0))
                dropped = rng.random() < hazard
            if dropped:
                record.sbp[visit] = None
                record.dbp[visit] = None
        locked.append(record)
    return locked, full


def corrected_export(locked: list[Patient], full: list[Patient]) -> tuple[list[Patient], list[str]]:
    """Data management's v2: three resolved queries add week-12 visits; KPA_SITE's week 12 exported in kPa."""
    late = [
        patient.patient_id
        for patient in locked
        if patient.sbp[12] is None and patient.sbp[8] is not None and patient.site != KPA_SITE
    ][::2][:LATE_ENTRIES]
    by_id = {patient.patient_id: patient for patient in full}
    v2: list[Patient] = []
    for patient in locked:
        record = patient.copy()
        if patient.patient_id in late:
            record.sbp[12] = by_id[patient.patient_id].sbp[12]
            record.dbp[12] = by_id[patient.patient_id].dbp[12]
        if patient.site == KPA_SITE:
            for readings in (record.sbp, record.dbp):
                if readings[12] is not None:
                    readings[12] = float(round(readings[12] / MMHG_PER_KPA, 2))
        v2.append(record)
    return v2, late


def to_csv(patients: list[Patient]) -> str:
    """The EDC export as CSV text; an empty cell is a visit not recorded."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(COLUMNS)
    for patient in patients:
        row: list[Any] = [patient.patient_id, patient.site, patient.arm, patient.age, patient.sex]
        for visit in VISITS:
            for readings in (patient.sbp, patient.dbp):
                reading = readings[visit]
                row.append("" if reading is None else f"{reading:g}")
        writer.writerow(row)
    return buf.getvalue()


def parse_csv(text: str) -> list[Patient]:
    """Read an export back (the same columns to_csv writes)."""
    out = []
    for row in csv.DictReader(io.StringIO(text)):
        patient = Patient(row["patient_id"], row["site"], row["arm"], int(row["age"]), row["sex"])
        for visit in VISITS:
            patient.sbp[visit] = float(row[f"sbp_w{visit}"]) if row[f"sbp_w{visit}"] else None
            patient.dbp[visit] = float(row[f"dbp_w{visit}"]) if row[f"dbp_w{visit}"] else None
        out.append(patient)
    return out


def repair_units(patients: list[Patient]) -> tuple[list[Patient], list[str]]:
    """Convert readings that can only be kPa (below 40) back to mmHg; returns the sites touched."""
    fixed: list[Patient] = []
    sites: set[str] = set()
    for patient in patients:
        record = patient.copy()
        for readings in (record.sbp, record.dbp):
            for visit, reading in readings.items():
                if reading is not None and reading < 40.0:
                    readings[visit] = _tenth(reading * MMHG_PER_KPA)
                    sites.add(patient.site)
        fixed.append(record)
    return fixed, sorted(sites)


@dataclass(frozen=True)
class Exports:
    """What data management sends: the locked export v1 and the re-export v2, as records and as CSV."""

    locked: list[Patient]
    v2: list[Patient]
    late: list[str]  # patients whose week-12 visit v2 adds
    v1_csv: str
    v2_csv: str
    clean: list[Patient]  # v2 with its kPa readings converted back to mmHg

    @classmethod
    def of(cls, inp: TrialInputs) -> Exports:
        locked, full = simulate_trial(inp)
        v2, late = corrected_export(locked, full)
        v1_csv, v2_csv = to_csv(locked), to_csv(v2)
        clean, _ = repair_units(parse_csv(v2_csv))
        return cls(locked, v2, late, v1_csv, v2_csv, clean)

    @property
    def kpa_readings(self) -> list[float]:
        """The KPA_SITE week-12 SBP readings as v2 holds them (in kPa)."""
        return [
            patient.sbp[12] for patient in self.v2 if patient.site == KPA_SITE and patient.sbp[12] is not None
        ]


# --------------------------------------------------------------------------- the files the persona pushes

SAP_EXCERPT = """# CVT-207-201 Statistical Analysis Plan v2.0 (final, signed before unblinding) - Section 9 excerpt

9.1 Primary endpoint. Change from baseline (week 0) to week 12 in seated office systolic blood
pressure (SBP, mmHg; mean of triplicate readings).

9.2 Primary analysis. ANCOVA of the week-12 change with treatment as a factor and baseline SBP as a
covariate, in randomised patients with an observed week-12 SBP (observed cases). Treatment effects
are least-squares mean differences (active minus placebo) with two-sided 95% confidence intervals.

9.3 Multiplicity. The family is {CVT-207 40 mg vs placebo, CVT-207 10 mg vs placebo}. Familywise
type I error is controlled at two-sided alpha = 0.05 with the Hochberg step-up procedure; adjusted
p-values are reported.

9.4 Secondary endpoints (not multiplicity-protected; nominal p-values).
  a. Change from baseline to week 12 in seated DBP: ANCOVA with baseline DBP as covariate.
  b. Responder: week-12 SBP < 140 mmHg. Patients without a week-12 SBP are non-responders.
     Denominator = all randomised. Risk difference vs placebo with Wald 95% CI.

9.5 Supportive analysis. Welch two-sample t-test of the week-12 SBP change (unadjusted).

9.6 Sensitivity analyses for missing data.
  a. LOCF: last observed SBP carried forward to week 12 (baseline if no post-baseline visit),
     same ANCOVA, all randomised patients.
  b. Multiple imputation under MAR: sequential regression imputation within arm for the monotone
     pattern, at least 20 imputations, random seed recorded in the report, Rubin's rules.

9.7 Subgroups (exploratory). Sex; age < 65 / >= 65 years. 40 mg vs placebo within each subgroup,
with a treatment-by-subgroup interaction test. No multiplicity adjustment; not for confirmatory claims.

9.8 Analysis populations. Exclusions from any analysis set are decided at the blinded data review
before unblinding. No exclusions based on post-randomisation outcome values.
"""


def data_files(exports: Exports) -> list[DataFile]:
    """The files the persona pushes: the SAP excerpt, the locked export and the re-export."""
    return [
        DataFile(
            name="sap_excerpt.md",
            media_type="text/markdown",
            description="Section 9 of the signed statistical analysis plan.",
            content=SAP_EXCERPT,
        ),
        DataFile(
            name="bp_readings.csv",
            media_type="text/csv",
            description="Locked EDC export v1: one row per randomised patient, office SBP/DBP (mmHg) at weeks 0-12; "
            "empty cells are visits not recorded.",
            content=exports.v1_csv,
        ),
        DataFile(
            name="bp_readings_v2.csv",
            media_type="text/csv",
            description="Data management's re-export after three late week-12 queries were resolved.",
            content=exports.v2_csv,
        ),
    ]
