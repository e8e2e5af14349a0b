"""Pipeline diagnosis solver: the funnel by stage and quarter, where and when it broke (with real statistics), what it
cost and what it is not; ``instance`` draws until the data bears out the meeting's premises."""

from __future__ import annotations

import csv
import io
import logging
from dataclasses import dataclass, field

import numpy as np
from scipy import stats

from .data import (
    JULY_WEEKS,
    NEW_REP,
    OPP,
    PROPOSAL,
    Q2_WEEKS,
    Q3_WEEKS,
    REGIONS,
    REPS,
    ROUTING_WEEK,
    SEGMENT_KEYS,
    SEGMENTS,
    SQL,
    TRANSITIONS,
    WEEKS,
    WON,
    CrmData,
    parse_export,
)

logger = logging.getLogger(__name__)


def conversion(rank: np.ndarray, mask: np.ndarray, from_rank: int, to_rank: int) -> tuple[float, int, int]:
    """(% that reached to_rank among those that reached from_rank, denominator, numerator)."""
    base = mask & (rank >= from_rank)
    n = int(base.sum())
    k = int((base & (rank >= to_rank)).sum())
    return (100.0 * k / n if n else float("nan")), n, k


def two_proportion_z(k1: int, n1: int, k2: int, n2: int) -> tuple[float, float]:
    """Pooled two-proportion z statistic (group 1 minus group 2) and its two-sided p-value."""
    p = (k1 + k2) / (n1 + n2)
    se = np.sqrt(p * (1 - p) * (1 / n1 + 1 / n2))
    z = (k1 / n1 - k2 / n2) / se
    return float(z), float(2 * stats.norm.sf(abs(z)))


@dataclass
class Solution:
    """Every derived value of the diagnosis; ``gt`` holds the scalars by name."""

    gt: dict[str, float | str] = field(default_factory=dict)
    funnel: dict[str, dict[str, float]] = field(default_factory=dict)  # quarter -> transition -> %
    stage_counts: dict[str, dict[str, int]] = field(default_factory=dict)  # quarter -> stage -> records
    segment_sql_opp: dict[str, dict[str, float]] = field(default_factory=dict)  # segment key -> fields
    segment_sql_proposal: dict[str, dict[str, float]] = field(default_factory=dict)
    weekly_mm_inbound: list[float] = field(default_factory=list)  # SQL→opp % per week in WEEKS
    weekly_mm_inbound_sqls: list[int] = field(default_factory=list)
    weekly_mm_inbound_opps: list[int] = field(default_factory=list)
    weekly_other: list[float] = field(default_factory=list)
    segment_drops: dict[str, float] = field(default_factory=dict)  # "segment/transition" -> Q3−Q2 pp
    mm_q3_by_owner: dict[str, tuple[int, int]] = field(
        default_factory=dict
    )  # AE -> (Q3 SQLs, Q3 opportunities)

    def value_of(self, key: str) -> float:
        """A numeric ground-truth value by name."""
        value = self.gt[key]
        assert isinstance(value, int | float)
        return float(value)


def solve(data: CrmData) -> Solution:
    """Funnel by stage and quarter, where it broke, when, what it cost, and what it is not."""
    r = parse_export(data.export_csv)
    sol = Solution()
    gt = sol.gt
    q2 = np.isin(r.week, Q2_WEEKS)
    q3 = np.isin(r.week, Q3_WEEKS)
    everyone = np.ones(len(r), dtype=bool)
    mm = r.segment == "Mid-Market"
    inbound = r.source == "Inbound"
    mmi = mm & inbound
    pre = r.week < ROUTING_WEEK
    post = r.week >= ROUTING_WEEK
    gt["rows"] = len(r)
    gt["owner_filled_rows"] = int((r.owner != "").sum())
    gt["deal_size_filled_rows"] = int(np.isfinite(r.deal_size).sum())
    gt["sql_or_later_rows"] = int((r.rank >= SQL).sum())
    gt["opportunity_or_later_rows"] = int((r.rank >= OPP).sum())

    stage_names = (("leads", 0), ("mqls", 1), ("sqls", 2), ("opportunities", 3), ("proposals", 4), ("won", 5))
    for qname, qmask in (("q2", q2), ("q3", q3)):
        sol.stage_counts[qname] = {name: int((qmask & (r.rank >= k)).sum()) for name, k in stage_names}
        sol.funnel[qname] = {key: conversion(r.rank, qmask, k, k + 1)[0] for key, _, k in TRANSITIONS}
        for name, _ in stage_names:
            gt[f"{qname}_{name}"] = sol.stage_counts[qname][name]
        for key, _, _ in TRANSITIONS:
            gt[f"{qname}_{key}_pct"] = sol.funnel[qname][key]
    gt["lead_growth_pct"] = 100.0 * (gt["q3_leads"] / gt["q2_leads"] - 1)  # type: ignore[operator]
    gt["sql_growth_pct"] = 100.0 * (gt["q3_sqls"] / gt["q2_sqls"] - 1)  # type: ignore[operator]
    gt["opportunity_change_pct"] = 100.0 * (gt["q3_opportunities"] / gt["q2_opportunities"] - 1)  # type: ignore[operator]

    # Every segment × transition change; the break is the largest drop.
    for seg in SEGMENTS:
        smask = r.segment == seg
        for key, _, k in TRANSITIONS:
            a = conversion(r.rank, smask & q2, k, k + 1)[0]
            b = conversion(r.rank, smask & q3, k, k + 1)[0]
            sol.segment_drops[f"{SEGMENT_KEYS[seg]}/{key}"] = b - a
    worst = min(sol.segment_drops, key=lambda s: sol.segment_drops[s])
    gt["largest_drop_cell"] = worst
    gt["largest_drop_pp"] = sol.segment_drops[worst]
    others = [abs(v) for k, v in sol.segment_drops.items() if k != worst]
    gt["second_largest_change_pp"] = max(others)

    def sql_rows(to_rank: int, store: dict[str, dict[str, float]], prefix: str) -> None:
        groups = [(SEGMENT_KEYS[s], r.segment == s) for s in SEGMENTS]
        groups += [
            ("mid_market_inbound", mmi),
            ("mid_market_outbound", mm & (r.source == "Outbound")),
            ("mid_market_partner", mm & (r.source == "Partner")),
            ("all", everyone),
        ]
        for name, gmask in groups:
            a, na, ka = conversion(r.rank, gmask & q2, SQL, to_rank)
            b, nb, kb = conversion(r.rank, gmask & q3, SQL, to_rank)
            z, p = two_proportion_z(ka, na, kb, nb)
            store[name] = {
                "q2": a,
                "q3": b,
                "change_pp": b - a,
                "q2_sqls": na,
                "q3_sqls": nb,
                "z": z,
                "p_value": p,
            }
            for f, v in store[name].items():
                gt[f"{prefix}_{name}_{f}"] = v

    sql_rows(OPP, sol.segment_sql_opp, "sql_opp")
    sql_rows(PROPOSAL, sol.segment_sql_proposal, "sql_prop")

    # Week by week around the change: the broken cell against everything else.
    other = ~mmi
    for w in WEEKS:
        wk = r.week == w
        rate, n, _ = conversion(r.rank, mmi & wk, SQL, OPP)
        sol.weekly_mm_inbound.append(rate)
        sol.weekly_mm_inbound_sqls.append(n)
        sol.weekly_other.append(conversion(r.rank, other & wk, SQL, OPP)[0])
    for w in WEEKS:
        _, n, k = conversion(r.rank, mmi & (r.week == w), SQL, OPP)
        sol.weekly_mm_inbound_opps.append(k)
    for w in (30, 31):
        gt[f"mm_inbound_week{w}_pct"] = sol.weekly_mm_inbound[WEEKS.index(w)]
        gt[f"mm_inbound_week{w}_sqls"] = sol.weekly_mm_inbound_sqls[WEEKS.index(w)]
    w31_35 = np.isin(r.week, range(31, 36))
    gt["mm_inbound_w31_35_pct"], gt["mm_inbound_w31_35_sqls"], _ = conversion(r.rank, mmi & w31_35, SQL, OPP)
    noninbound = mm & ~inbound
    gt["mm_noninbound_pre_pct"] = conversion(r.rank, noninbound & pre, SQL, OPP)[0]
    gt["mm_noninbound_post_pct"] = conversion(r.rank, noninbound & post, SQL, OPP)[0]
    pre_rate, pre_n, pre_k = conversion(r.rank, mmi & pre, SQL, OPP)
    post_rate, post_n, post_k = conversion(r.rank, mmi & post, SQL, OPP)
    gt["mm_inbound_pre_pct"], gt["mm_inbound_pre_sqls"] = pre_rate, pre_n
    gt["mm_inbound_post_pct"], gt["mm_inbound_post_sqls"] = post_rate, post_n
    gt["mm_inbound_post_opps"] = post_k
    gt["mm_inbound_post_unconverted"] = post_n - post_k
    gt["mm_inbound_pre_post_z"], gt["mm_inbound_pre_post_p"] = two_proportion_z(pre_k, pre_n, post_k, post_n)
    gt["mm_inbound_july_pct"] = conversion(r.rank, mmi & np.isin(r.week, JULY_WEEKS), SQL, OPP)[0]
    gt["mm_inbound_weekly_post_sqls"] = post_n / len([w for w in WEEKS if w >= ROUTING_WEEK])
    gt["other_pre_pct"] = conversion(r.rank, other & pre, SQL, OPP)[0]
    gt["other_post_pct"] = conversion(r.rank, other & post, SQL, OPP)[0]
    for reg in REGIONS:
        gt[f"mm_inbound_post_{reg.lower()}_pct"] = conversion(
            r.rank, mmi & post & (r.region == reg), SQL, OPP
        )[0]
        gt[f"mm_inbound_pre_{reg.lower()}_pct"] = conversion(r.rank, mmi & pre & (r.region == reg), SQL, OPP)[
            0
        ]

    # Mix shift vs rate change in the company-wide SQL→opportunity rate, across segments.
    mix = rate_eff = 0.0
    n2, n3 = gt["q2_sqls"], gt["q3_sqls"]
    for seg in SEGMENTS:
        key = SEGMENT_KEYS[seg]
        w2 = sol.segment_sql_opp[key]["q2_sqls"] / n2  # type: ignore[operator]
        w3 = sol.segment_sql_opp[key]["q3_sqls"] / n3  # type: ignore[operator]
        r2, r3 = sol.segment_sql_opp[key]["q2"], sol.segment_sql_opp[key]["q3"]
        gt[f"sql_share_q2_{key}_pct"], gt[f"sql_share_q3_{key}_pct"] = 100 * w2, 100 * w3
        mix += (w3 - w2) * r2
        gt[f"rate_effect_{key}_pp"] = w3 * (r3 - r2)
        rate_eff += w3 * (r3 - r2)
    gt["mix_effect_pp"], gt["rate_effect_pp"] = mix, rate_eff
    gt["total_change_pp"] = sol.segment_sql_opp["all"]["change_pp"]
    gt["mm_share_of_drop_pct"] = 100 * gt["rate_effect_mid_market_pp"] / gt["total_change_pp"]  # type: ignore[operator]

    # The new rep against his peers on the same post-change mid-market inbound SQLs.
    tb = mmi & post & (r.owner == NEW_REP)
    peers = mmi & post & (r.owner != NEW_REP)
    tb_rate, tb_n, tb_k = conversion(r.rank, tb, SQL, OPP)
    peer_rate, peer_n, peer_k = conversion(r.rank, peers, SQL, OPP)
    gt["new_rep_post_pct"], gt["new_rep_post_sqls"] = tb_rate, tb_n
    gt["peers_post_pct"], gt["peers_post_sqls"] = peer_rate, peer_n
    gt["new_rep_vs_peers_z"], gt["new_rep_vs_peers_p"] = two_proportion_z(tb_k, tb_n, peer_k, peer_n)
    for owner in sorted(set(r.owner[mm & q3 & (r.rank >= SQL)].tolist())):
        _, n, k = conversion(r.rank, mm & q3 & (r.owner == owner), SQL, OPP)
        sol.mm_q3_by_owner[owner] = (n, k)
    gt["peers_pre_pct"] = conversion(r.rank, mmi & pre & np.isin(r.owner, REPS["Mid-Market"]), SQL, OPP)[0]

    # Marketing ops' refresh: duplicates by id, and what they do to the Q3 rate.
    f = parse_export(data.refresh_csv)
    _, first = np.unique(f.ids, return_index=True)
    keep = np.zeros(len(f), dtype=bool)
    keep[first] = True
    f_mmi_q3 = (f.source == "Inbound") & np.isin(f.week, Q3_WEEKS)
    gt["refresh_rows"] = len(f)
    gt["refresh_duplicate_rows"] = int(len(f) - keep.sum())
    gt["refresh_duplicates_post_routing"] = int(
        (~keep & (f.week >= ROUTING_WEEK) & (f.source == "Inbound")).sum()
    )
    gt["refresh_naive_q3_mm_inbound_pct"] = conversion(f.rank, f_mmi_q3, SQL, OPP)[0]
    gt["refresh_dedup_q3_mm_inbound_pct"] = conversion(f.rank, f_mmi_q3 & keep, SQL, OPP)[0]
    export_stage = dict(zip(r.ids.tolist(), r.rank.tolist(), strict=True))
    gt["refresh_stage_mismatches"] = int(
        sum(export_stage.get(i, -1) != k for i, k in zip(f.ids.tolist(), f.rank.tolist(), strict=True))
    )

    # The AE follow-up list the persona pushes at hand-off.
    backlog = list(csv.DictReader(io.StringIO(data.backlog_csv)))
    gt["backlog_rows"] = len(backlog)
    gt["backlog_owners"] = len({b["owner"] for b in backlog})
    gt["backlog_new_rep_rows"] = sum(1 for b in backlog if b["owner"] == NEW_REP)

    # Pipeline impact of the post-change shortfall, at baseline economics.
    missing = post_n * (pre_rate - post_rate) / 100.0
    won_q2 = mm & q2 & (r.rank == WON)
    avg_deal = float(np.nanmean(r.deal_size[won_q2]))
    win_q2 = conversion(r.rank, mm & q2, OPP, WON)[0]
    win_q3 = conversion(r.rank, mm & q3, OPP, WON)[0]
    gt["missing_opportunities"] = missing
    gt["mm_avg_won_deal_usd"] = avg_deal
    gt["mm_q2_won_deals"] = int(won_q2.sum())
    gt["mm_q2_avg_opp_usd"] = float(np.nanmean(r.deal_size[mm & q2 & (r.rank >= OPP)]))
    gt["mm_win_rate_q2_pct"], gt["mm_win_rate_q3_pct"] = win_q2, win_q3
    gt["lost_pipeline_usd"] = missing * avg_deal
    gt["lost_bookings_q3_winrate_usd"] = missing * avg_deal * win_q3 / 100
    gt["lost_bookings_usd"] = missing * avg_deal * win_q2 / 100
    q3_mm_bookings = float(np.nansum(r.deal_size[mm & q3 & (r.rank == WON)]))
    gt["q3_mm_bookings_usd"] = q3_mm_bookings
    gt["lost_bookings_share_of_q3_mm_pct"] = 100 * gt["lost_bookings_usd"] / q3_mm_bookings  # type: ignore[operator]

    # A holdout that reverts the routing for half the SQLs: size to detect pre vs post at 80% power.
    p1, p2 = pre_rate / 100, post_rate / 100
    pbar = (p1 + p2) / 2
    za, zb = stats.norm.ppf(0.975), stats.norm.ppf(0.80)
    n_arm = (za * np.sqrt(2 * pbar * (1 - pbar)) + zb * np.sqrt(p1 * (1 - p1) + p2 * (1 - p2))) ** 2 / (
        p1 - p2
    ) ** 2
    gt["holdout_sqls_per_arm"] = float(np.ceil(n_arm))
    gt["holdout_weeks"] = float(np.ceil(2 * np.ceil(n_arm) / gt["mm_inbound_weekly_post_sqls"]))  # type: ignore[operator]
    return sol


def story_breaks(sol: Solution) -> list[str]:
    """The relationships the meeting script states as fact that this instance's data does not bear out.

    Empty for every instance ``build()`` accepts: the script is fixed text, so a fresh draw of the
    numbers has to tell the same story.
    """
    g = sol.gt

    def f(key: str) -> float:
        v = g[key]
        assert isinstance(v, int | float)
        return float(v)

    seg = sol.segment_sql_opp
    pre, post = f("mm_inbound_pre_pct"), f("mm_inbound_post_pct")
    mid = (pre + post) / 2
    company = {k: sol.funnel["q3"][k] - sol.funnel["q2"][k] for k, _, _ in TRANSITIONS}
    premises = {
        # Where it broke, how sure, and when.
        "the largest drop is mid-market SQL→opportunity": g["largest_drop_cell"]
        == "mid_market/sql_to_opportunity",
        "SQL→opportunity is the company stage that moved": max(company, key=lambda k: abs(company[k]))
        == "sql_to_opportunity",
        "the mid-market drop is significant at 0.1%": seg["mid_market"]["p_value"] < 0.001,
        "the before/after split is significant at 0.1%": f("mm_inbound_pre_post_p") < 0.001,
        "week 30 converts normally and week 31 has collapsed": f("mm_inbound_week30_pct")
        > mid
        > f("mm_inbound_week31_pct"),
        "July converted as well as Q2": f("mm_inbound_july_pct") >= seg["mid_market_inbound"]["q2"] - 5,
        "every region fell after week 31": all(f(f"mm_inbound_post_{r.lower()}_pct") < mid for r in REGIONS),
        "the board metric still shows the break": sol.segment_sql_proposal["mid_market_inbound"]["p_value"]
        < 0.05,
        # What it is not.
        "all other SQLs held": abs(f("other_post_pct") - f("other_pre_pct")) < 5,
        "SMB's change is noise": seg["smb"]["p_value"] > 0.05,
        "enterprise ticked up, within noise": seg["enterprise"]["change_pp"] > 0
        and seg["enterprise"]["p_value"] > 0.05,
        "mid-market outbound and partner held": seg["mid_market_outbound"]["p_value"] > 0.05
        and seg["mid_market_partner"]["p_value"] > 0.05,
        "the same AEs still convert other sources": f("mm_noninbound_post_pct")
        > f("mm_noninbound_pre_pct") - 12,
        "leads up, SQLs flat, opportunities down": f("lead_growth_pct") > 5
        and abs(f("sql_growth_pct")) < 5
        and f("opportunity_change_pct") < -5,
        "lead→MQL and MQL→SQL held": abs(company["lead_to_mql"]) < 3 and abs(company["mql_to_sql"]) < 4,
        "the webinar added SMB leads, not SMB SQLs": abs(
            f("sql_share_q3_smb_pct") - f("sql_share_q2_smb_pct")
        )
        < 2,
        "mix effect is near zero (−0.5 to +0.2 points)": -0.5 <= f("mix_effect_pp") <= 0.2,
        "mid-market's rate change is essentially the whole drop": 80 <= f("mm_share_of_drop_pct") <= 120,
        # The new AE.
        "the new AE is below his peers, not significantly": f("new_rep_post_pct") < f("peers_post_pct")
        and f("new_rep_vs_peers_p") > 0.05,
        "the established AEs fell too": f("peers_post_pct") < mid,
        # The refresh file and the impact.
        "the duplicates make inbound look over 3 points worse": f("refresh_dedup_q3_mm_inbound_pct")
        - f("refresh_naive_q3_mm_inbound_pct")
        > 3,
        "every duplicate is a post-change inbound SQL": f("refresh_duplicates_post_routing")
        == f("refresh_duplicate_rows"),
        "Q3's win rate is below Q2's": f("mm_win_rate_q3_pct") < f("mm_win_rate_q2_pct"),
        "closed-won and all-opportunity deal sizes are close": abs(
            f("mm_q2_avg_opp_usd") / f("mm_avg_won_deal_usd") - 1
        )
        < 0.15,
        "the holdout is shorter than a quarter": f("holdout_weeks") < len(Q3_WEEKS),
    }
    return [name for name, holds in premises.items() if not holds]
