"""Pipeline diagnosis products: the analysis sheet's rows from the solution, and the programmatic checks of each
product."""

from __future__ import annotations

import logging
from typing import Any

from modylbench.scenarios._kit import criterion
from modylbench.scenarios._schema import VerificationCriterion

from .data import TRANSITIONS, WEEKS
from .solver import Solution
from .wording import pct, r1, short_musd

logger = logging.getLogger(__name__)


BOOKINGS_FORMULA = "=lost_pipeline_usd*win_rate_pct/100"


def cell(x: float, digits: int = 1) -> float:
    return round(float(x), digits)


def p_cell(p: float) -> float:
    return float(f"{p:.2g}")


def funnel_rows(sol: Solution) -> dict[str, dict[str, Any]]:
    return {
        key: {
            "label": label,
            "q2": cell(sol.funnel["q2"][key]),
            "q3": cell(sol.funnel["q3"][key]),
            "change_pp": cell(sol.funnel["q3"][key] - sol.funnel["q2"][key]),
        }
        for key, label, _ in TRANSITIONS
    }


def sql_row(d: dict[str, float]) -> dict[str, Any]:
    return {
        "q2": cell(d["q2"]),
        "q3": cell(d["q3"]),
        "change_pp": cell(d["change_pp"]),
        "q2_sqls": int(d["q2_sqls"]),
        "q3_sqls": int(d["q3_sqls"]),
        "p_value": p_cell(d["p_value"]),
    }


def criteria(sol: Solution) -> dict[str, list[VerificationCriterion]]:
    """Programmatic checks of each product, with expected values from the solution."""
    truth, sql_opp, sql_proposal = sol.value_of, sol.segment_sql_opp, sol.segment_sql_proposal

    w30, w31 = WEEKS.index(30), WEEKS.index(31)
    return {
        "funnel_analysis": [
            criterion("fa_sheets", "all eight analysis sheets are present", "count_at_least", "", 8),
            criterion(
                "fa_company_sql_opp_q3",
                "company SQL→opportunity, Q3",
                "numeric_equality",
                "/funnel_by_quarter/sql_to_opportunity/q3",
                r1(truth("q3_sql_to_opportunity_pct")),
                1.0,
            ),
            criterion(
                "fa_mm_q2",
                "mid-market SQL→opportunity, Q2",
                "numeric_equality",
                "/sql_to_opportunity/mid_market/q2",
                r1(sql_opp["mid_market"]["q2"]),
                1.0,
            ),
            criterion(
                "fa_mm_q3",
                "mid-market SQL→opportunity, Q3",
                "numeric_equality",
                "/sql_to_opportunity/mid_market/q3",
                r1(sql_opp["mid_market"]["q3"]),
                1.0,
            ),
            criterion(
                "fa_mm_p",
                "mid-market drop is significant at 0.1%",
                "numeric_range",
                "/sql_to_opportunity/mid_market/p_value",
                [0.0, 0.001],
            ),
            criterion(
                "fa_mmi_q3",
                "mid-market inbound SQL→opportunity, Q3",
                "numeric_equality",
                "/sql_to_opportunity/mid_market_inbound/q3",
                r1(sql_opp["mid_market_inbound"]["q3"]),
                1.0,
            ),
            criterion(
                "fa_post",
                "mid-market inbound SQL→opportunity, weeks 31–39",
                "numeric_equality",
                "/before_after_week31/mid_market_inbound/weeks_31_39",
                r1(truth("mm_inbound_post_pct")),
                1.0,
            ),
            criterion(
                "fa_mix",
                "mix effect is near zero (−0.5 to +0.2 points)",
                "numeric_range",
                "/mix_vs_rate/mix_effect/pp",
                [-0.5, 0.2],
            ),
            criterion(
                "fa_dedup",
                "duplicate rows found in the refresh",
                "numeric_equality",
                "/data_quality/duplicate_rows/result",
                truth("refresh_duplicate_rows"),
                0.1,
            ),
            criterion(
                "fa_win_rate",
                "impact uses the Q2 baseline win rate",
                "numeric_equality",
                "/impact/win_rate_pct/result",
                round(truth("mm_win_rate_q2_pct"), 2),
                1.0,
            ),
            criterion(
                "fa_bookings",
                "expected lost bookings at the Q2 win rate",
                "numeric_equality",
                "/impact/expected_lost_bookings_usd/result",
                round(truth("lost_bookings_usd")),
                2.0,
            ),
            criterion(
                "fa_prop_mmi_q3",
                "mid-market inbound SQL→proposal, Q3",
                "numeric_equality",
                "/sql_to_proposal/mid_market_inbound/q3",
                r1(sql_proposal["mid_market_inbound"]["q3"]),
                1.0,
            ),
            criterion(
                "fa_new_rep_p",
                "new-rep comparison is not significant",
                "numeric_range",
                "/new_rep_check/new_rep/p_value_vs_peers",
                [0.05, 1.0],
            ),
        ],
        "diagnosis_memo": [
            criterion(
                "memo_sections",
                "finding, evidence, root cause, impact, recommendations, data notes",
                "count_at_least",
                "/sections",
                6,
            ),
            criterion(
                "memo_finding_week",
                "finding dates the break to week 31",
                "contains",
                "/sections/0/text",
                "week 31",
            ),
            criterion(
                "memo_finding_segment",
                "finding names mid-market inbound",
                "contains",
                "/sections/0/text",
                "mid-market inbound",
            ),
            criterion(
                "memo_evidence_post",
                "evidence gives the post-change rate",
                "contains",
                "/sections/1/text",
                pct(truth("mm_inbound_post_pct")),
            ),
            criterion(
                "memo_root_routing",
                "root cause names the routing rule",
                "contains",
                "/sections/2/text",
                "routing",
            ),
            criterion(
                "memo_root_rep",
                "root cause clears the new hire on the evidence",
                "contains",
                "/sections/2/text",
                "no evidence",
            ),
            criterion(
                "memo_impact_pipeline",
                "impact gives the lost pipeline",
                "contains",
                "/sections/3/text",
                short_musd(truth("lost_pipeline_usd")),
            ),
            criterion(
                "memo_recs_holdout",
                "recommendations include the holdout",
                "contains",
                "/sections/4/text",
                "holdout",
            ),
            criterion(
                "memo_notes_dupes",
                "data notes record the duplicates",
                "contains",
                "/sections/5/text",
                "duplicate",
            ),
        ],
        "conversion_trend": [
            criterion("ch_type", "a line chart", "one_of", "/chart_type", ["line"]),
            criterion("ch_weeks", "one point per week 14–39", "count_at_least", "/categories", len(WEEKS)),
            criterion(
                "ch_series", "mid-market inbound and a comparison series", "count_at_least", "/series", 2
            ),
            criterion(
                "ch_w30",
                "week 30 mid-market inbound rate",
                "numeric_equality",
                f"/series/0/values/{w30}",
                r1(sol.weekly_mm_inbound[w30]),
                1.0,
            ),
            criterion(
                "ch_w31",
                "week 31 mid-market inbound rate",
                "numeric_equality",
                f"/series/0/values/{w31}",
                r1(sol.weekly_mm_inbound[w31]),
                1.0,
            ),
            criterion(
                "ch_other_w31",
                "week 31 comparison rate",
                "numeric_equality",
                f"/series/1/values/{w31}",
                r1(sol.weekly_other[w31]),
                1.0,
            ),
            criterion(
                "ch_title", "title carries the routing-change takeaway", "contains", "/title", "routing"
            ),
            criterion("ch_ylabel", "y-axis names the metric", "contains", "/y_label", "opportunity"),
        ],
    }
