"""The supply-chain meeting's solution: the transshipment LP solved with HiGHS (flows, duals, reduced costs),
the planners' greedy plan, every re-solve the meeting asks for, and the check that an instance keeps the story."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy.optimize import linprog

from modylbench.scenarios.builtin.supply_chain.data import (
    CUT_DC,
    DALLAS_FILE_HANDLING,
    DUPLICATE_REGION,
    EXTRA_CMH_CASES,
    INTERMODAL_LANE,
    MAX_OUTBOUND_DAYS,
    OVERTIME_PLANT,
    PEAK_OVERTIME_PLANT,
    PROTECTED_REGION,
    Inputs,
    Lane,
    Network,
    contract_network,
    lane_id,
    path_cost,
    typo,
    uplift_demand,
)

logger = logging.getLogger(__name__)

TOL = 1e-6  # cases or $: below this a flow, dual or shortfall is zero


@dataclass
class LPResult:
    """An optimal transshipment plan and its sensitivity information."""

    cost: float
    production_cost: float
    flows: dict[tuple[str, str], float]  # (origin, destination) → cases, inbound and outbound lanes
    unmet: dict[str, float]
    plant_output: dict[str, float]
    dc_throughput: dict[str, float]
    plant_dual: dict[str, float]  # $ saved per extra case of capacity (≥ 0)
    dc_dual: dict[str, float]
    reduced_cost: dict[tuple[str, str], float]  # $/case a lane must get cheaper before it carries volume
    eligible_outbound: int
    excluded_outbound: int
    penalty: float  # $/case the shortfall was priced at

    @property
    def penalty_cost(self) -> float:
        return self.penalty * sum(self.unmet.values())

    @property
    def logistics_cost(self) -> float:
        """Inbound freight + handling + outbound freight (total less production and shortfall penalty)."""
        return self.cost - self.production_cost - self.penalty_cost


def eligible_outbound(net: Network) -> list[Lane]:
    return [ln for ln in net.lanes if ln.leg == "outbound" and ln.transit_days <= MAX_OUTBOUND_DAYS]


@dataclass(frozen=True)
class _Program:
    """The transshipment LP in matrix form: inbound lanes, eligible outbound lanes, then one shortfall per region."""

    inbound: list[Lane]
    outbound: list[Lane]
    cost: np.ndarray
    a_ub: np.ndarray
    b_ub: np.ndarray
    a_eq: np.ndarray
    b_eq: np.ndarray
    bounds: list[tuple[float, float | None]]

    def solve(self, objective: np.ndarray | None = None, max_cost: float | None = None) -> Any:
        """HiGHS on this program; optionally another objective with the landed cost capped."""
        a_ub, b_ub = self.a_ub, self.b_ub
        if max_cost is not None:
            a_ub, b_ub = np.vstack([a_ub, self.cost]), np.append(b_ub, max_cost)
        c = self.cost if objective is None else objective
        return linprog(
            c, A_ub=a_ub, b_ub=b_ub, A_eq=self.a_eq, b_eq=self.b_eq, bounds=self.bounds, method="highs"
        )


def _program(net: Network, penalty: float, protect: tuple[str, ...] = ()) -> _Program:
    inb = [ln for ln in net.lanes if ln.leg == "inbound"]
    out = eligible_outbound(net)
    n_in, n_out, n_r = len(inb), len(out), len(net.regions)
    nv = n_in + n_out + n_r
    cost = np.array(
        [net.plant(ln.origin).production_cost + ln.cost for ln in inb]
        + [net.dc(ln.origin).handling_cost + ln.cost for ln in out]
        + [penalty] * n_r
    )
    a_ub = np.zeros((len(net.plants) + len(net.dcs), nv))
    b_ub = np.zeros(a_ub.shape[0])
    for i, p in enumerate(net.plants):
        for j, ln in enumerate(inb):
            a_ub[i, j] = ln.origin == p.code
        b_ub[i] = p.capacity
    for k, d in enumerate(net.dcs):
        row = len(net.plants) + k
        for j, ln in enumerate(inb):
            a_ub[row, j] = ln.destination == d.code
        b_ub[row] = d.capacity
    a_eq = np.zeros((len(net.dcs) + n_r, nv))
    b_eq = np.zeros(a_eq.shape[0])
    for k, d in enumerate(net.dcs):
        for j, ln in enumerate(inb):
            a_eq[k, j] = ln.destination == d.code
        for j, ln in enumerate(out):
            a_eq[k, n_in + j] = -(ln.origin == d.code)
    for k, r in enumerate(net.regions):
        row = len(net.dcs) + k
        for j, ln in enumerate(out):
            a_eq[row, n_in + j] = ln.destination == r.code
        a_eq[row, n_in + n_out + k] = 1.0
        b_eq[row] = r.demand
    bounds: list[tuple[float, float | None]] = [(0.0, None)] * (n_in + n_out) + [
        (0.0, 0.0 if r.code in protect else None) for r in net.regions
    ]
    return _Program(inb, out, cost, a_ub, b_ub, a_eq, b_eq, bounds)


def solve_lp(net: Network, penalty: float, protect: tuple[str, ...] = ()) -> LPResult:
    """Minimum landed cost plan: arc formulation with DC flow balance, solved by HiGHS.

    Regions in ``protect`` may not be short-shipped (their shortfall variable is fixed at zero).
    """
    prog = _program(net, penalty, protect)
    inb, out = prog.inbound, prog.outbound
    n_in, n_out = len(inb), len(out)
    res = prog.solve()
    if res.status != 0:
        raise RuntimeError(f"transshipment LP did not solve: {res.message}")
    x = res.x
    flows = {(ln.origin, ln.destination): float(x[j]) for j, ln in enumerate(inb)}
    flows.update({(ln.origin, ln.destination): float(x[n_in + j]) for j, ln in enumerate(out)})
    rc = {(ln.origin, ln.destination): float(res.lower.marginals[j]) for j, ln in enumerate(inb)}
    rc.update({(ln.origin, ln.destination): float(res.lower.marginals[n_in + j]) for j, ln in enumerate(out)})
    marg = res.ineqlin.marginals
    production = sum(net.plant(ln.origin).production_cost * x[j] for j, ln in enumerate(inb))
    n_total_out = sum(1 for ln in net.lanes if ln.leg == "outbound")
    return LPResult(
        cost=float(res.fun),
        production_cost=float(production),
        flows=flows,
        unmet={r.code: float(x[n_in + n_out + k]) for k, r in enumerate(net.regions)},
        plant_output={
            p.code: float(sum(x[j] for j, ln in enumerate(inb) if ln.origin == p.code)) for p in net.plants
        },
        dc_throughput={
            d.code: float(sum(x[j] for j, ln in enumerate(inb) if ln.destination == d.code)) for d in net.dcs
        },
        plant_dual={p.code: float(-marg[i]) + 0.0 for i, p in enumerate(net.plants)},
        dc_dual={d.code: float(-marg[len(net.plants) + k]) + 0.0 for k, d in enumerate(net.dcs)},
        reduced_cost=rc,
        eligible_outbound=n_out,
        excluded_outbound=n_total_out - n_out,
        penalty=penalty,
    )


@dataclass
class GreedyResult:
    """The planners' 'cheapest lane first' plan: whole paths taken in order of landed cost."""

    cost: float
    unmet: float
    path_flows: dict[tuple[str, str, str], float] = field(default_factory=dict)

    def dc_throughput(self, code: str) -> float:
        return sum(q for (_p, d, _r), q in self.path_flows.items() if d == code)

    def plant_output(self, code: str) -> float:
        return sum(q for (p, _d, _r), q in self.path_flows.items() if p == code)


def greedy_plan(net: Network, penalty: float) -> GreedyResult:
    """Fill the cheapest plant→DC→region path as far as capacity allows, then the next, and so on."""
    plant_left = {p.code: p.capacity for p in net.plants}
    dc_left = {d.code: d.capacity for d in net.dcs}
    demand_left = {r.code: r.demand for r in net.regions}
    paths = sorted(
        (round(path_cost(net, p.code, ln.origin, ln.destination), 6), p.code, ln.origin, ln.destination)
        for p in net.plants
        for ln in eligible_outbound(net)
    )
    out = GreedyResult(0.0, 0.0)
    for c, p, d, r in paths:
        q = min(plant_left[p], dc_left[d], demand_left[r])
        if q <= 0:
            continue
        plant_left[p] -= q
        dc_left[d] -= q
        demand_left[r] -= q
        out.cost += q * c
        out.path_flows[(p, d, r)] = q
    out.unmet = sum(demand_left.values())
    out.cost += penalty * out.unmet
    return out


def split_regions(net: Network, lp: LPResult) -> list[str]:
    """Regions a plan serves from more than one DC."""
    return [
        r.code
        for r in net.regions
        if sum(1 for d in net.dcs if lp.flows.get((d.code, r.code), 0.0) > TOL) > 1
    ]


def binding(values: dict[str, float]) -> list[str]:
    """Codes whose capacity dual is positive (capacity is binding and worth money)."""
    return [k for k, v in values.items() if v > TOL]


def solve(net: Network, inputs: Inputs) -> dict[str, Any]:
    """Every derived value of the meeting, from the raw network the persona's files describe."""
    inp, penalty = inputs, inputs.penalty
    total_plant = sum(p.capacity for p in net.plants)
    total_dc = sum(d.capacity for d in net.dcs)
    total_demand = sum(r.demand for r in net.regions)
    pre = solve_lp(net, penalty)
    base_net = contract_network(net, inp)
    base = solve_lp(base_net, penalty)
    greedy = greedy_plan(base_net, penalty)
    cut_net = base_net.with_dc(CUT_DC, capacity=inp.cut_capacity)
    cut = solve_lp(cut_net, penalty)
    cut_greedy = greedy_plan(cut_net, penalty)
    promo = uplift_demand(net, inp)
    peak_net = cut_net.with_demand(promo)
    peak = solve_lp(peak_net, penalty)
    ot = solve_lp(
        base_net.with_plant(
            OVERTIME_PLANT, capacity=base_net.plant(OVERTIME_PLANT).capacity + inp.overtime_cases
        ),
        penalty,
    )
    im_lane = base_net.lane(*INTERMODAL_LANE)
    paths = [
        (path_cost(base_net, p.code, ln.origin, ln.destination), p.code, ln.origin, ln.destination)
        for p in net.plants
        for ln in eligible_outbound(net)
    ]
    dup_typo = typo(promo[DUPLICATE_REGION])
    file_paths = [
        path_cost(net, p.code, ln.origin, ln.destination) for p in net.plants for ln in eligible_outbound(net)
    ]
    ot_used = ot.plant_output[OVERTIME_PLANT] - base.plant_output[OVERTIME_PLANT]
    protected = solve_lp(peak_net, penalty, protect=(PROTECTED_REGION,))
    jol_cap = peak_net.plant(PEAK_OVERTIME_PLANT).capacity + inp.peak_overtime_cases
    peak_ot = solve_lp(peak_net.with_plant(PEAK_OVERTIME_PLANT, capacity=jol_cap), penalty)
    peak_ot_used = peak_ot.plant_output[PEAK_OVERTIME_PLANT] - peak.plant_output[PEAK_OVERTIME_PLANT]
    cmh_plus = solve_lp(cut_net.with_dc(CUT_DC, capacity=inp.cut_capacity + EXTRA_CMH_CASES), penalty)
    dc_options = {
        r.code: sum(1 for ln in eligible_outbound(net) if ln.destination == r.code) for r in net.regions
    }
    return {
        "net": net,
        "base_net": base_net,
        "cut_net": cut_net,
        "peak_net": peak_net,
        "pre": pre,
        "base": base,
        "greedy": greedy,
        "cut": cut,
        "cut_greedy": cut_greedy,
        "peak": peak,
        "overtime": ot,
        "promo": promo,
        "total_plant_capacity": total_plant,
        "total_dc_capacity": total_dc,
        "total_demand": total_demand,
        "plant_utilisation_needed_pct": 100 * total_demand / total_plant,
        "max_path_cost": max(file_paths),
        "single_dc_regions": [k for k, v in dc_options.items() if v == 1],
        "overtime_used": ot_used,
        "overtime_gross_saving": base.cost - ot.cost,
        "overtime_net_used": base.cost - ot.cost - inp.overtime_premium * ot_used,
        "protected": protected,
        "protect_cost": protected.cost - peak.cost,
        "peak_overtime": peak_ot,
        "peak_overtime_used": peak_ot_used,
        "peak_overtime_net": peak.cost - peak_ot.cost - inp.peak_overtime_premium * peak_ot_used,
        "cmh_extra_value": cut.cost - cmh_plus.cost,
        "min_path": min(paths),
        "n_paths": len(paths),
        "overtime_net_saving": base.cost - ot.cost - inp.overtime_premium * inp.overtime_cases,
        "intermodal_rate_cut": inp.intermodal_discount * im_lane.cost,
        "intermodal_reduced_cost": base.reduced_cost[INTERMODAL_LANE],
        "promo_total": sum(promo.values()),
        "promo_dup_value": dup_typo,
        "promo_naive_total": sum(promo.values()) + dup_typo,
    }


def shortfall_range(net: Network, penalty: float, region: str, slack: float = 1.0) -> tuple[float, float]:
    """Least and most a region can be shorted by a plan within ``slack`` dollars of the optimum."""
    prog = _program(net, penalty)
    opt = prog.solve()
    k = len(prog.inbound) + len(prog.outbound) + [r.code for r in net.regions].index(region)
    obj = np.zeros(len(prog.cost))
    obj[k] = 1.0
    lo, hi = prog.solve(obj, opt.fun + slack), prog.solve(-obj, opt.fun + slack)
    if lo.status != 0 or hi.status != 0:
        raise RuntimeError(f"shortfall range for {region} did not solve")
    return float(lo.fun), float(-hi.fun)


def utilisation(used: float, cap: float) -> float:
    """Percent of capacity used, to one decimal."""
    return round(100.0 * used / cap, 1)


def utilisations(result: LPResult, net: Network) -> list[float]:
    """Utilisation of every plant, then every DC, under a plan (the chart's bar order)."""
    return [utilisation(result.plant_output[p.code], p.capacity) for p in net.plants] + [
        utilisation(result.dc_throughput[d.code], d.capacity) for d in net.dcs
    ]


def freight(net: Network, flows: dict[tuple[str, str], float], leg: str) -> float:
    return sum(q * net.lane(*k).cost for k, q in flows.items() if net.lane(*k).leg == leg)


def greedy_lanes(g: GreedyResult) -> dict[tuple[str, str], float]:
    lanes: dict[tuple[str, str], float] = {}
    for (p, d, r), q in g.path_flows.items():
        lanes[(p, d)] = lanes.get((p, d), 0.0) + q
        lanes[(d, r)] = lanes.get((d, r), 0.0) + q
    return lanes


# --------------------------------------------------------------------------- instances


def story_breaks(net: Network, inputs: Inputs, s: dict[str, Any]) -> list[str]:
    """The script's claims that these numbers would make false (empty when the meeting holds as written)."""
    pre, base, cut, peak = s["pre"], s["base"], s["cut"], s["peak"]
    greedy, cgreedy = s["greedy"], s["cut_greedy"]
    penalty, cut_net, peak_net = inputs.penalty, s["cut_net"], s["peak_net"]
    g_lanes = greedy_lanes(greedy)
    shortfall = sum(peak.unmet.values())
    base_u = {p.code: utilisation(base.plant_output[p.code], p.capacity) for p in net.plants} | {
        d.code: utilisation(base.dc_throughput[d.code], d.capacity) for d in net.dcs
    }
    split = split_regions(net, cut)
    checks: dict[str, bool] = {
        "plants tight but feasible": 90 < s["plant_utilisation_needed_pct"] < 99,
        "dearest path well under the penalty": s["max_path_cost"] < 0.8 * penalty,
        "Dallas contract rate is a rise": inputs.dallas_contract_handling
        > net.dc(DALLAS_FILE_HANDLING).handling_cost,
        "no flows move with the Dallas rate": {k: round(v) for k, v in pre.flows.items()}
        == {k: round(v) for k, v in base.flows.items()},
        "Reno, Macon and Columbus bind": binding(base.plant_dual) == binding(pre.plant_dual) == ["RNO", "MCN"]
        and binding(base.dc_dual) == binding(pre.dc_dual) == ["CMH"],
        "inbound lanes as walked through": {
            k for k, q in base.flows.items() if q > TOL and k[0] in ("RNO", "JOL", "MCN")
        }
        == {("RNO", "STK"), ("JOL", "CMH"), ("JOL", "ABE"), ("JOL", "STK"), ("MCN", "DAL"), ("MCN", "ABE")},
        "cheapest-first spends Macon on Columbus, trucks Joliet to Dallas": g_lanes.get(("MCN", "CMH"), 0.0)
        > TOL
        and g_lanes.get(("JOL", "DAL"), 0.0) > TOL
        and base.reduced_cost[("JOL", "DAL")] > 0.005,
        "cheapest-first serves everyone": greedy.unmet < TOL and cgreedy.unmet < TOL,
        "savings material, wider after the cut": 100_000 <= greedy.cost - base.cost < 1_000_000
        and cgreedy.cost - cut.cost > greedy.cost - base.cost,
        "same production as cheapest-first": all(
            abs(g.plant_output(p) - q) < 0.5
            for lp, g in ((base, greedy), (cut, cgreedy))
            for p, q in lp.plant_output.items()
        )
        and all(
            abs(g.dc_throughput(d) - q) < 0.5
            for lp, g in ((base, greedy), (cut, cgreedy))
            for d, q in lp.dc_throughput.items()
        ),
        "Reno overtime: usable part is the Joliet volume into Stockton": 0
        < s["overtime_used"]
        < inputs.overtime_cases
        and abs(s["overtime_used"] - base.flows[("JOL", "STK")]) < 0.5
        and s["overtime_net_saving"] < 0 < s["overtime_net_used"],
        "intermodal would not enter": s["intermodal_rate_cut"] < s["intermodal_reduced_cost"],
        "Allentown is the emptiest building": base_u["ABE"] < min(u for k, u in base_u.items() if k != "ABE"),
        "Dallas has room before the cut and fills after it": base.dc_throughput["DAL"]
        < net.dc("DAL").capacity - 1
        and abs(cut.dc_throughput["DAL"] - cut_net.dc("DAL").capacity) < 0.5,
        "the cut binds and everyone is still served": cut.dc_dual["CMH"] > 0.005
        and cut.dc_dual["DAL"] > 0.005
        and sum(cut.unmet.values()) < TOL
        and binding(cut.plant_dual) == ["RNO", "MCN"],
        "the Columbus volume goes to Dallas and Allentown": net.dc(CUT_DC).capacity - inputs.cut_capacity
        >= 50_000
        and abs(cut.dc_throughput["STK"] - base.dc_throughput["STK"]) < 0.5
        and cut.dc_throughput["ABE"] > base.dc_throughput["ABE"] + 0.5,
        "Upper Midwest to Dallas, part of the Southeast to Allentown": cut.flows[("DAL", "UMW")]
        > base.flows[("DAL", "UMW")] + 0.5
        and cut.flows[("ABE", "SEA")] > base.flows[("ABE", "SEA")] + 0.5
        and cut.flows[("CMH", "SEA")] > TOL
        and cut.flows[("JOL", "ABE")] > base.flows[("JOL", "ABE")] + 0.5,
        "two or more regions split, each across two DCs": len(split) >= 2
        and all(sum(cut.flows.get((d.code, r), 0.0) > TOL for d in net.dcs) == 2 for r in split),
        "extra Columbus block inside the shadow price's range": abs(
            s["cmh_extra_value"] - EXTRA_CMH_CASES * cut.dc_dual["CMH"]
        )
        < 1.0,
        "Joliet spare, dearer than Macon into Allentown": cut_net.plant("JOL").capacity
        - cut.plant_output["JOL"]
        > 1000
        and cut.flows[("MCN", "ABE")] > TOL
        and cut_net.plant("JOL").production_cost + cut_net.lane("JOL", "ABE").cost
        > cut_net.plant("MCN").production_cost + cut_net.lane("MCN", "ABE").cost + 0.005,
        "the promo typo swaps two different digits": 100_000 <= s["promo"][DUPLICATE_REGION] < 1_000_000
        and s["promo_dup_value"] != s["promo"][DUPLICATE_REGION]
        and s["promo_naive_total"] > s["total_plant_capacity"],
        "peak short by exactly the plant gap": 5_000 <= shortfall
        and abs(shortfall - (s["promo_total"] - s["total_plant_capacity"])) < 0.5,
        "the model shorts the Northwest and protecting it moves the gap": peak.unmet[PROTECTED_REGION] > TOL
        and bool([k for k, v in s["protected"].unmet.items() if v > TOL and peak.unmet[k] <= TOL])
        and abs(sum(s["protected"].unmet.values()) - shortfall) < 0.5
        and peak.flows[("JOL", "STK")] > TOL,
        "peak: plants and every DC but Stockton full": all(
            abs(peak.plant_output[p.code] - p.capacity) < 0.5 for p in peak_net.plants
        )
        and all(abs(peak.dc_throughput[d.code] - d.capacity) < 0.5 for d in peak_net.dcs if d.code != "STK")
        and peak.dc_throughput["STK"] < peak_net.dc("STK").capacity - 1
        and peak.dc_throughput["ABE"] > cut.dc_throughput["ABE"] + 0.5,
        "Joliet weekend shifts clear the whole gap and pay": abs(s["peak_overtime_used"] - shortfall) < 0.5
        and shortfall < inputs.peak_overtime_cases
        and sum(s["peak_overtime"].unmet.values()) < 0.5
        and s["peak_overtime_net"] > 0,
    }
    broken = [claim for claim, holds in checks.items() if not holds]
    if not broken:
        for r in net.regions:
            lo, hi = shortfall_range(peak_net, penalty, r.code)
            if hi - lo > 50.0 or abs(lo - peak.unmet[r.code]) > 50.0:  # cases; $1 of slack moves a few
                broken.append(f"the peak shortfall split is not unique ({r.code})")
    return broken


def ground_truth(solution: dict[str, Any]) -> dict[str, float | str]:
    """Every key figure of the solution by name; the plan of record's flows and the peak shortfalls by lane and region."""
    base: LPResult = solution["base"]
    cut: LPResult = solution["cut"]
    peak: LPResult = solution["peak"]
    greedy: GreedyResult = solution["greedy"]
    cgreedy: GreedyResult = solution["cut_greedy"]
    shortfall = sum(peak.unmet.values())
    truth: dict[str, float | str] = {
        "total_plant_capacity": solution["total_plant_capacity"],
        "total_dc_capacity": solution["total_dc_capacity"],
        "total_demand": solution["total_demand"],
        "eligible_outbound_lanes": float(base.eligible_outbound),
        "max_path_cost": solution["max_path_cost"],
        "file_rates_optimal_cost": solution["pre"].cost,
        "baseline_optimal_cost": base.cost,
        "baseline_production_cost": base.production_cost,
        "baseline_logistics_cost": base.logistics_cost,
        "current_plan_cost": greedy.cost,
        "baseline_savings": greedy.cost - base.cost,
        "dual_plant_RNO": base.plant_dual["RNO"],
        "dual_plant_MCN": base.plant_dual["MCN"],
        "dual_dc_CMH": base.dc_dual["CMH"],
        "reduced_cost_RNO_CMH": solution["intermodal_reduced_cost"],
        "overtime_usable_cases": solution["overtime_used"],
        "overtime_net_saving_usable": solution["overtime_net_used"],
        "columbus_cut_cost": cut.cost,
        "columbus_cut_dual_CMH": cut.dc_dual["CMH"],
        "columbus_cut_dual_DAL": cut.dc_dual["DAL"],
        "columbus_cut_current_plan_cost": cgreedy.cost,
        "columbus_cut_savings": cgreedy.cost - cut.cost,
        "promo_total_demand": solution["promo_total"],
        "promo_naive_total_demand": solution["promo_naive_total"],
        "peak_cost": peak.cost,
        "peak_shortfall_cases": shortfall,
        "peak_penalty_cost": peak.penalty_cost,
        "peak_protect_pnw_extra_cost": solution["protect_cost"],
        "peak_joliet_overtime_cases": solution["peak_overtime_used"],
        "peak_joliet_overtime_net": solution["peak_overtime_net"],
        "columbus_extra_10k_value": solution["cmh_extra_value"],
        "plan_of_record": "columbus_cut",
    }
    for k, q in sorted(cut.flows.items()):
        if q > TOL:
            truth[f"por_flow_{lane_id(k)}"] = q
    for r, q in peak.unmet.items():
        truth[f"peak_unmet_{r}"] = q
    return truth
