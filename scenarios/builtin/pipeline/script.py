"""The pipeline diagnosis meeting, phase by phase: a RevOps VP and the analyst find why Q3 conversion fell.

``build(seed)`` takes one instance (``solver.instance``: inputs, CRM export, solution) and writes the meeting with
the scenario kit; each phase function below adds its turns and the reference solution's edits in order. Figures
come in through ``Meeting``.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from modylbench.scenarios._kit import Script, number, text
from modylbench.scenarios._schema import (
    Aside,
    Backchannel,
    ChartSeries,
    ChartSpec,
    DataFile,
    EdgeCase,
    ExpectedOutput,
    HumanPersona,
    PersonaVoice,
    ProductSpec,
    Scenario,
    Slide,
    TableSpec,
    Verification,
)
from modylbench.scenarios.builtin.pipeline.data import IDENTITY

from .data import BACKLOG_NAME, EXPORT_NAME, REFRESH_NAME, SCENARIO_ID, TRANSITIONS, WEEKS, CrmData, Inputs
from .instances import instance
from .knowledge import knowledge
from .products import BOOKINGS_FORMULA, cell, criteria, funnel_rows, p_cell, sql_row
from .solver import Solution
from .wording import kusd, musd, p_text, pct, r1

logger = logging.getLogger(__name__)

ANALYSIS, MEMO, CHART = "funnel_analysis", "diagnosis_memo", "conversion_trend"


@dataclass(frozen=True)
class Meeting:
    """The instance the meeting talks about: inputs, the CRM data, the solution, and the figures drawn from it."""

    inputs: Inputs
    data: CrmData
    sol: Solution

    @property
    def truth(self) -> Callable[[str], float]:
        """A numeric ground-truth value by name."""
        return self.sol.value_of

    @property
    def sql_opp(self) -> dict[str, dict[str, float]]:
        """SQL to opportunity by segment key."""
        return self.sol.segment_sql_opp

    @property
    def sql_proposal(self) -> dict[str, dict[str, float]]:
        """SQL to proposal (the board's definition) by segment key."""
        return self.sol.segment_sql_proposal

    @property
    def pre(self) -> float:
        """Mid-market inbound SQL to opportunity before the routing change (weeks 14-30), %."""
        return r1(self.truth("mm_inbound_pre_pct"))

    @property
    def post(self) -> float:
        """The same after it (weeks 31-39), %."""
        return r1(self.truth("mm_inbound_post_pct"))

    @property
    def mm_q2(self) -> float:
        return r1(self.sql_opp["mid_market"]["q2"])

    @property
    def mm_q3(self) -> float:
        return r1(self.sql_opp["mid_market"]["q3"])

    @property
    def mmi_q2(self) -> float:
        return r1(self.sql_opp["mid_market_inbound"]["q2"])

    @property
    def mmi_q3(self) -> float:
        return r1(self.sql_opp["mid_market_inbound"]["q3"])

    @property
    def all_drop(self) -> float:
        """The company-wide fall in SQL to opportunity, points."""
        return r1(-self.truth("total_change_pp"))

    @property
    def week_cats(self) -> list[str]:
        return [f"W{week}" for week in WEEKS]

    @property
    def mm_sqls_a_quarter(self) -> int:
        """Mid-market SQLs a quarter, rounded to 50 as the VP says it."""
        return (
            round((self.sql_opp["mid_market"]["q2_sqls"] + self.sql_opp["mid_market"]["q3_sqls"]) / 100) * 50
        )

    @property
    def series_mmi(self) -> dict[str, Any]:
        return {"name": "Mid-market inbound", "values": [cell(rate) for rate in self.sol.weekly_mm_inbound]}

    @property
    def series_other(self) -> dict[str, Any]:
        return {"name": "All other SQLs", "values": [cell(rate) for rate in self.sol.weekly_other]}

    @property
    def missing(self) -> float:
        """Opportunities lost to the drop."""
        return self.truth("missing_opportunities")

    @property
    def avg_deal(self) -> float:
        return self.truth("mm_avg_won_deal_usd")


def build(seed: int = 0) -> Scenario:
    """The Q3 pipeline conversion diagnosis meeting, built from the generated export and its solution.

    Seed 0 is the committed instance; any other seed is a fresh instance of the same meeting with new
    numbers (see ``instance``).
    """
    inputs, data, sol = instance(seed)
    meeting = Meeting(inputs=inputs, data=data, sol=sol)
    script = Script(wait=45.0, rtype="analysis")
    opening(script, meeting)
    funnel_by_segment(script, meeting)
    week_31_break(script, meeting)
    other_theories(script, meeting)
    memo_and_impact(script, meeting)
    redefinition_and_root_cause(script, meeting)
    memo_close(script, meeting)
    review(script, meeting)
    handoff(script, meeting)
    edges = [
        seasonality_claim(meeting),
        duplicated_refresh_file(meeting),
        omit_mid_market_breakdown(meeting),
        conversion_redefined(meeting),
        new_rep_blame(meeting),
    ]
    built = _scenario(script, meeting, edges)
    built.knowledge = knowledge(meeting, built)
    return built


def opening(script: Script, meeting: Meeting) -> None:
    """Background: the scorecard Renata saw, the definitions, what changed in Q3, the export and its column notes."""
    truth = meeting.truth
    script.turn(
        phase="context_setting",
        channel="audio",
        rtype="clarification",
        utterance="Thanks for jumping on. Quick background: I run revenue operations at Fernhill — we sell AP "
        "automation to finance teams in three segments, SMB, mid-market and enterprise. Renata, our CRO, "
        "saw the Q3 pipeline numbers on Monday and she is not happy. She wants to know by Thursday's "
        "forecast call whether this is a real conversion problem or noise, and what we do about it. I'd "
        "like to leave this call with a funnel analysis, a short diagnosis memo and a trend chart she can "
        "drop into the forecast deck.",
        action="Acknowledge the three deliverables and the Thursday deadline, and before any numbers ask how "
        "conversion is defined (stage-to-stage or cumulative, creation cohort, time window).",
        facts=[
            text(
                "t0_definition",
                "asks how conversion is defined before computing",
                "definition",
                "define",
                "defined",
                "cohort",
                "window",
            ),
        ],
        reference="Understood: a funnel analysis, a diagnosis memo and a trend chart, ready for Thursday's forecast "
        "call. Before I touch numbers, how do you define conversion — stage-to-stage on a creation "
        "cohort, and within what time window?",
        wait=30,
    )
    script.turn(
        phase="context_setting",
        channel="screen",
        rtype="analysis",
        utterance="Here's the scorecard Renata saw — I'm sharing it now. Leads are up, SQLs held, and opportunities "
        "created went the other way. That's what set her off.",
        action="Read the table and turn the counts into rates of change: leads grew, SQLs roughly flat, "
        "opportunities fell; so the leak sits between SQL and opportunity.",
        facts=[
            number(
                "t1_opp_decline",
                "decline in opportunities created, Q3 vs Q2",
                r1(-truth("opportunity_change_pct")),
                "%",
                1.5,
            ),
            number("t1_lead_growth", "growth in new leads, Q3 vs Q2", r1(truth("lead_growth_pct")), "%", 1.5),
            text(
                "t1_leak_location",
                "the leak sits between SQL and opportunity",
                "between SQL and opportunity",
                "SQL to opportunity",
                "SQL→opportunity",
                "after SQL",
            ),
        ],
        reference=f"Leads grew {pct(truth('lead_growth_pct'))} and SQLs were roughly flat at "
        f"{pct(truth('sql_growth_pct'))} growth, but opportunities created are down "
        f"{pct(-truth('opportunity_change_pct'))}. So the top of the funnel delivered and the leak sits "
        "between SQL and opportunity — that's where I'll start.",
        screen=Slide(
            slide_id="cro_scorecard",
            kind="table",
            title="Q3 pipeline scorecard (as shown to the CRO)",
            subtitle="Creation cohorts, ISO weeks 14–26 vs 27–39",
            table=TableSpec(
                columns=["Metric", "Q2", "Q3"],
                rows=[
                    ["New leads", int(truth("q2_leads")), int(truth("q3_leads"))],
                    ["MQLs", int(truth("q2_mqls")), int(truth("q3_mqls"))],
                    ["SQLs", int(truth("q2_sqls")), int(truth("q3_sqls"))],
                    ["Opportunities created", int(truth("q2_opportunities")), int(truth("q3_opportunities"))],
                    ["Closed won", int(truth("q2_won")), int(truth("q3_won"))],
                ],
            ),
            footnote="Source: CRM, stage reached within 60 days of creation",
        ),
    )
    script.turn(
        phase="context_setting",
        channel="audio",
        rtype="clarification",
        utterance="Definitions, so we're on the same page. Conversion for us is stage to stage on the creation "
        "cohort: of the leads created in a week, how many reached MQL, SQL, opportunity, proposal and "
        "closed-won within sixty days. Quarters are ISO weeks — Q2 is weeks 14 to 26, Q3 is 27 to 39. "
        "Anything not signed inside the sixty days counts as closed-lost.",
        action="Confirm the definition back precisely, note that the fixed 60-day window keeps Q2 and Q3 cohorts "
        "comparable, and ask what changed operationally during Q3.",
        facts=[
            text(
                "t2_what_changed",
                "asks what changed in Q3 (routing, people, campaigns)",
                "what changed",
                "routing",
                "process change",
                "territor",
                "headcount",
            ),
            text(
                "t2_window",
                "notes the fixed window makes cohorts comparable",
                "comparable",
                "same window",
                "like for like",
                "like-for-like",
            ),
        ],
        reference="Got it: stage-to-stage on creation cohorts, a 60-day window, Q2 = weeks 14–26 and Q3 = weeks "
        "27–39; the fixed window keeps the two quarters comparable. What changed operationally in Q3 — "
        "routing, territories, headcount or campaigns?",
        wait=35,
    )
    script.turn(
        phase="context_setting",
        channel="audio",
        rtype="verbal",
        backchannel=Backchannel(after_sec=2.0),
        utterance="Three things I know of. Marketing ran the SMB webinar series all quarter, so SMB lead volume "
        "jumped. We hired a new mid-market AE, Tomás Brennan. And my team changed the routing rule in the "
        "routing tool for mid-market inbound — I think that went live week 30 — we moved those leads off "
        "direct-to-territory-owner and onto the pod round robin.",
        action="Lay out the plan: funnel by stage, then by segment and source, week-by-week around the routing "
        "change, and a mix-versus-rate decomposition to separate the SMB volume shift from real rate "
        "changes; flag that the rep start and the routing change overlap in time.",
        facts=[
            text("t3_mix", "plans a mix-vs-rate decomposition for the SMB volume shift", "mix", "decompos"),
            text(
                "t3_weekly",
                "plans a week-by-week view around the routing change",
                "week by week",
                "week-by-week",
                "weekly",
            ),
        ],
        reference="Then the plan is: overall funnel by stage, then segment and lead source, then week-by-week around "
        "the routing change, plus a mix-versus-rate decomposition so the SMB webinar volume doesn't get "
        "mistaken for a rate problem. The new hire and the routing change land close together, so I'll "
        "keep those two apart carefully.",
    )
    script.turn(
        phase="context_setting",
        channel="data",
        utterance="Sending you the export now — every lead created in weeks 14 through 39, with the furthest stage "
        "it reached.",
        action="Load the file and profile it out loud: row count, records per quarter, columns, anything odd.",
        facts=[
            number("t4_rows", "records in the export", truth("rows"), "records", 0.1),
            number("t4_q2_leads", "records created in Q2", truth("q2_leads"), "records", 0.1),
            number("t4_q3_leads", "records created in Q3", truth("q3_leads"), "records", 0.1),
        ],
        reference=f"Loaded: {int(truth('rows')):,} records, {int(truth('q2_leads')):,} created in Q2 and "
        f"{int(truth('q3_leads')):,} in Q3, eight columns from opportunity_id to owner. Created dates map "
        "cleanly onto ISO weeks 14–39.",
        files=[EXPORT_NAME],
    )
    script.turn(
        phase="context_setting",
        channel="chat",
        rtype="clarification",
        utterance="I dropped the data team's column notes in chat — sanity-check them against the file.",
        action="Verify each note against the data: owner filled exactly on SQL-or-later rows, deal_size exactly on "
        "opportunity-or-later rows, no open Proposal rows.",
        facts=[
            number(
                "t5_sql_rows",
                "records at SQL or later (all have an owner)",
                truth("sql_or_later_rows"),
                "records",
                0.1,
            ),
            number(
                "t5_opp_rows",
                "records at opportunity or later (all have a deal size)",
                truth("opportunity_or_later_rows"),
                "records",
                0.1,
            ),
        ],
        reference=f"The notes hold: owner is filled on exactly the {int(truth('sql_or_later_rows'))} SQL-or-later records "
        f"and deal_size on exactly the {int(truth('opportunity_or_later_rows'))} opportunity-or-later records, "
        "and no record sits at Proposal.",
        chat_message="Column notes (data team): stage_reached = furthest stage within 60 days; nothing sits at "
        "'Proposal' because anything not signed in the window is Closed Lost. owner = AE the SQL was "
        "routed to, blank before SQL. deal_size = opportunity amount in USD, blank before Opportunity.",
    )


def funnel_by_segment(script: Script, meeting: Meeting) -> None:
    """The funnel Q2 against Q3, marketing's QBR claim, the split by segment and by source, last year's scoring swap."""
    sol, truth, sql_opp, mm_q2, mm_q3, mmi_q2, mmi_q3, all_drop, mm_sqls_a_quarter = (
        meeting.sol,
        meeting.truth,
        meeting.sql_opp,
        meeting.mm_q2,
        meeting.mm_q3,
        meeting.mmi_q2,
        meeting.mmi_q3,
        meeting.all_drop,
        meeting.mm_sqls_a_quarter,
    )
    script.turn(
        phase="active_work",
        channel="audio",
        rtype="work_product",
        utterance="OK, start at the top: the overall funnel, Q2 versus Q3, stage by stage. Put it in a sheet.",
        action="Create the funnel_analysis spreadsheet with a funnel_by_quarter sheet (five stage-to-stage rates for "
        "Q2, Q3 and the change) and say which stage moved most.",
        facts=[
            number(
                "t6_sql_opp_q2",
                "company SQL→opportunity rate, Q2",
                r1(truth("q2_sql_to_opportunity_pct")),
                "%",
                1.5,
            ),
            number(
                "t6_sql_opp_q3",
                "company SQL→opportunity rate, Q3",
                r1(truth("q3_sql_to_opportunity_pct")),
                "%",
                1.5,
            ),
            number("t6_drop", "drop in company SQL→opportunity, points", all_drop, "pp", 1.5),
        ],
        reference=f"The funnel sheet is in. SQL→opportunity is the stage that moved: "
        f"{pct(truth('q2_sql_to_opportunity_pct'))} in Q2 to {pct(truth('q3_sql_to_opportunity_pct'))} in Q3, "
        f"down {all_drop} points; every other stage moved by less than "
        f"{math.ceil(max(abs(sol.funnel['q3'][k] - sol.funnel['q2'][k]) for k, _, _ in TRANSITIONS if k != 'sql_to_opportunity'))} points.",
        wait=75,
    )
    script.create(ANALYSIS, {})
    for key, row in funnel_rows(sol).items():
        script.edit(ANALYSIS, "add_row", f"/funnel_by_quarter/{key}", row)

    script.turn(
        phase="active_work",
        channel="screen",
        utterance="This is what marketing's putting in their QBR: funnel volume up, 'marketing delivered'. They're "
        "not wrong, are they?",
        action="Agree the volume is real but separate volume from rates: lead→MQL and MQL→SQL rates barely moved, "
        "so the extra leads reached SQL; the loss happens after SQL.",
        facts=[
            number("t7_l2m_q2", "lead→MQL rate, Q2", r1(truth("q2_lead_to_mql_pct")), "%", 1.5),
            number("t7_l2m_q3", "lead→MQL rate, Q3", r1(truth("q3_lead_to_mql_pct")), "%", 1.5),
        ],
        reference=f"On volume they're right, and the rates held too: lead→MQL went from {pct(truth('q2_lead_to_mql_pct'))} "
        f"to {pct(truth('q3_lead_to_mql_pct'))}, so the extra leads flowed through. The problem isn't "
        "marketing's half of the funnel; it starts after SQL.",
        screen=Slide(
            slide_id="marketing_qbr_volume",
            kind="chart",
            title="Marketing QBR: funnel volume, Q2 vs Q3",
            chart=ChartSpec(
                chart_type="bar",
                categories=["Leads", "MQLs", "SQLs"],
                series=[
                    ChartSeries(name="Q2", values=[truth("q2_leads"), truth("q2_mqls"), truth("q2_sqls")]),
                    ChartSeries(name="Q3", values=[truth("q3_leads"), truth("q3_mqls"), truth("q3_sqls")]),
                ],
                y_label="Records",
            ),
            footnote="Marketing ops dashboard",
        ),
    )
    script.turn(
        phase="active_work",
        channel="audio",
        rtype="work_product",
        utterance="So where does it break? Split SQL to opportunity by segment.",
        action="Add a sql_to_opportunity sheet by segment with Q2, Q3, SQL counts and a two-proportion z-test; "
        "name mid-market as the break and give its significance.",
        facts=[
            number("t8_mm_q2", "mid-market SQL→opportunity, Q2", mm_q2, "%", 1.5),
            number("t8_mm_q3", "mid-market SQL→opportunity, Q3", mm_q3, "%", 1.5),
            number(
                "t8_mm_z",
                "two-proportion z statistic, mid-market Q2 vs Q3",
                round(truth("sql_opp_mid_market_z"), 2),
                "",
                3,
            ),
            text("t8_p", "mid-market drop is significant", "p < 0.001", "p<0.001", "less than 0.001"),
        ],
        reference=f"It's mid-market: SQL→opportunity fell from {pct(mm_q2)} to {pct(mm_q3)}, a "
        f"{r1(-sql_opp['mid_market']['change_pp'])}-point drop with z = {truth('sql_opp_mid_market_z'):.2f}, "
        f"p < 0.001. SMB moved {r1(sql_opp['smb']['change_pp'])} points ({p_text(sql_opp['smb']['p_value'])}) and "
        f"enterprise actually rose {r1(sql_opp['enterprise']['change_pp'])} points "
        f"({p_text(sql_opp['enterprise']['p_value'])}) — both within noise.",
        wait=75,
    )
    for key in ("smb", "mid_market", "enterprise"):
        script.edit(ANALYSIS, "add_row", f"/sql_to_opportunity/{key}", sql_row(sql_opp[key]))

    script.turn(
        phase="active_work",
        channel="audio",
        rtype="clarification",
        utterance="Give me that in English. Renata will ask if it's noise — we only get a couple hundred mid-market "
        "SQLs a quarter.",
        action=f"Explain the test in plain words with the sample sizes: with ~{mm_sqls_a_quarter} SQLs a quarter, a drop that size "
        "would happen by chance far less than 1 time in 1,000.",
        facts=[
            number("t9_n_q2", "mid-market SQLs in Q2", sql_opp["mid_market"]["q2_sqls"], "SQLs", 0.1),
            number("t9_n_q3", "mid-market SQLs in Q3", sql_opp["mid_market"]["q3_sqls"], "SQLs", 0.1),
            text(
                "t9_chance", "chance explanation below 1 in 1,000", "1 in 1,000", "one in a thousand", "1,000"
            ),
        ],
        reference=f"With {int(sql_opp['mid_market']['q2_sqls'])} mid-market SQLs in Q2 and "
        f"{int(sql_opp['mid_market']['q3_sqls'])} in Q3, a drop of {r1(-sql_opp['mid_market']['change_pp'])} points "
        "would show up by pure chance less than 1 in 1,000 times. The SMB wobble is the size noise "
        "produces; the mid-market one is not.",
    )
    script.turn(
        phase="active_work",
        channel="chat",
        rtype="work_product",
        utterance="Posted a follow-up in chat.",
        action="Add mid-market inbound, outbound and partner rows; show the drop is inbound only.",
        facts=[
            number("t10_mmi_q2", "mid-market inbound SQL→opportunity, Q2", mmi_q2, "%", 1.5),
            number("t10_mmi_q3", "mid-market inbound SQL→opportunity, Q3", mmi_q3, "%", 1.5),
            number(
                "t10_mmo_q3",
                "mid-market outbound SQL→opportunity, Q3",
                r1(sql_opp["mid_market_outbound"]["q3"]),
                "%",
                1.5,
            ),
        ],
        reference=f"It's inbound only: mid-market inbound went from {pct(mmi_q2)} to {pct(mmi_q3)}, while outbound "
        f"held at {pct(sql_opp['mid_market_outbound']['q2'])} → {pct(sql_opp['mid_market_outbound']['q3'])} and "
        f"partner at {pct(sql_opp['mid_market_partner']['q2'])} → {pct(sql_opp['mid_market_partner']['q3'])} "
        "on small counts.",
        chat_message="Can you cut mid-market by lead source? Inbound / outbound / partner.",
        wait=60,
        reference_chat=f"Mid-market SQL→opp, Q2 → Q3: inbound {pct(mmi_q2)} → {pct(mmi_q3)} "
        f"(n={int(sql_opp['mid_market_inbound']['q2_sqls'])}/{int(sql_opp['mid_market_inbound']['q3_sqls'])}); "
        f"outbound {pct(sql_opp['mid_market_outbound']['q2'])} → {pct(sql_opp['mid_market_outbound']['q3'])}; "
        f"partner {pct(sql_opp['mid_market_partner']['q2'])} → {pct(sql_opp['mid_market_partner']['q3'])}",
    )
    for key in ("mid_market_inbound", "mid_market_outbound", "mid_market_partner"):
        script.edit(ANALYSIS, "add_row", f"/sql_to_opportunity/{key}", sql_row(sql_opp[key]))

    script.turn(
        phase="active_work",
        channel="audio",
        rtype="verbal",
        utterance="You know, this smells like last year, when marketing swapped the lead-scoring model and sales "
        "refused half the MQLs for a month. I spent my entire October in meetings about what an MQL is. "
        "Please tell me we're not reliving that.",
        action="Answer the tangent briefly with data — a scoring problem shows up in MQL→SQL, which held — and "
        "steer back to the SQL→opportunity break.",
        facts=[
            number("t11_m2s_q2", "MQL→SQL rate, Q2", r1(truth("q2_mql_to_sql_pct")), "%", 1.5),
            number("t11_m2s_q3", "MQL→SQL rate, Q3", r1(truth("q3_mql_to_sql_pct")), "%", 1.5),
        ],
        reference=f"Not this time: a scoring fight shows up as MQLs refused at MQL→SQL, and that held at "
        f"{pct(truth('q2_mql_to_sql_pct'))} in Q2 versus {pct(truth('q3_mql_to_sql_pct'))} in Q3. The break is one "
        "step later, when AEs turn SQLs into opportunities.",
        wait=30,
    )


def week_31_break(script: Script, meeting: Meeting) -> None:
    """The weekly trend chart, the seasonality claim, the comparison line, the go-live week corrected, the weekly numbers."""
    sol, truth, pre, post, week_cats, series_mmi, series_other = (
        meeting.sol,
        meeting.truth,
        meeting.pre,
        meeting.post,
        meeting.week_cats,
        meeting.series_mmi,
        meeting.series_other,
    )
    chart_initial = {
        "chart_type": "line",
        "title": "Mid-market inbound SQL→opportunity rate by week",
        "x_label": "ISO week created (2025)",
        "y_label": "Rate (%)",
        "categories": week_cats,
        "series": [],
    }
    script.turn(
        phase="active_work",
        channel="screen",
        rtype="work_product",
        utterance="This is the weekly mid-market inbound SQL count from my dashboard. Volume looks normal all the "
        "way through. So if it's not volume — when did the rate go?",
        action="Compute the weekly SQL→opportunity rate for mid-market inbound, find the step at week 31 (not "
        "week 30), give before/after rates, and start the conversion_trend chart and a before/after sheet.",
        facts=[
            number("t12_pre", "mid-market inbound SQL→opportunity, weeks 14–30", pre, "%", 1.5),
            number("t12_post", "mid-market inbound SQL→opportunity, weeks 31–39", post, "%", 1.5),
            text("t12_week", "the step is at week 31", "week 31", "W31", "wk 31"),
        ],
        reference=f"Volume is steady, but the rate steps down at week 31: mid-market inbound converted "
        f"{pct(pre)} of SQLs in weeks 14–30 and {pct(post)} in weeks 31–39. That's one week later than the "
        "week-30 go-live you mentioned. I've started the trend chart and a before/after sheet.",
        wait=90,
        screen=Slide(
            slide_id="mm_inbound_weekly_sqls",
            kind="chart",
            title="Mid-market inbound SQLs per week",
            chart=ChartSpec(
                chart_type="bar",
                categories=week_cats,
                series=[ChartSeries(name="SQLs", values=[float(n) for n in sol.weekly_mm_inbound_sqls])],
                x_label="ISO week created",
                y_label="SQLs",
            ),
            footnote="RevOps dashboard, creation week",
        ),
    )
    script.create(CHART, chart_initial)
    script.edit(CHART, "add_chart_series", "/series/0", series_mmi)
    script.edit(
        ANALYSIS,
        "add_row",
        "/before_after_week31/mid_market_inbound",
        {
            "weeks_14_30": pre,
            "weeks_31_39": post,
            "change_pp": cell(post - pre),
            "sqls_14_30": int(truth("mm_inbound_pre_sqls")),
            "sqls_31_39": int(truth("mm_inbound_post_sqls")),
        },
    )

    seasonal = seasonality_claim(meeting)
    script.turn(
        phase="edge_case",
        channel="audio",
        rtype="pushback",
        utterance=seasonal.human_utterance,
        action=seasonal.expected_behavior,
        facts=[
            number(
                "t13_july",
                "mid-market inbound SQL→opportunity in July (weeks 27–30)",
                r1(truth("mm_inbound_july_pct")),
                "%",
                1.5,
            ),
            number("t13_other_post", "all other SQLs, weeks 31–39", r1(truth("other_post_pct")), "%", 1.5),
            text(
                "t13_step",
                "describes a step change at week 31, not a gradual dip",
                "step",
                "week 31",
                "overnight",
            ),
        ],
        reference=f"The data doesn't look seasonal: in July, weeks 27–30, mid-market inbound converted "
        f"{pct(truth('mm_inbound_july_pct'))}, as well as Q2, and then it stepped down at week 31. Over the "
        f"same weeks every other SQL converted at {pct(truth('other_post_pct'))} versus "
        f"{pct(truth('other_pre_pct'))} before — a summer effect would hit them too. If you want seasonality "
        "tested properly, I'd need last year's Q3.",
        edge_case=seasonal.name,
        barge_in_after_sec=25,
    )
    script.turn(
        phase="active_work",
        channel="audio",
        rtype="work_product",
        utterance="Fine — I hear you. Put a comparison line on the chart so she can see it: everything that isn't "
        "mid-market inbound.",
        action="Add the all-other series to the chart and a matching before/after row; state both periods' rates.",
        facts=[
            number(
                "t14_other_pre",
                "all other SQLs, SQL→opportunity weeks 14–30",
                r1(truth("other_pre_pct")),
                "%",
                1.5,
            ),
            number(
                "t14_other_post",
                "all other SQLs, SQL→opportunity weeks 31–39",
                r1(truth("other_post_pct")),
                "%",
                1.5,
            ),
        ],
        reference=f"Added: the comparison line runs flat — all other SQLs converted {pct(truth('other_pre_pct'))} before "
        f"week 31 and {pct(truth('other_post_pct'))} after — while mid-market inbound drops off the cliff.",
        wait=60,
    )
    script.edit(CHART, "add_chart_series", "/series/1", series_other)
    script.edit(
        ANALYSIS,
        "add_row",
        "/before_after_week31/all_other",
        {
            "weeks_14_30": cell(truth("other_pre_pct")),
            "weeks_31_39": cell(truth("other_post_pct")),
            "change_pp": cell(truth("other_post_pct") - truth("other_pre_pct")),
        },
    )
    script.turn(
        phase="active_work",
        channel="audio",
        rtype="correction",
        utterance="Hang on, correction on my side. I said the routing change went live week 30. I just pulled up the "
        "change log: the rule was built in week 30 but activated Monday July 28th. That's week 31.",
        action="Take the correction and show it lines up: week 30 at its normal rate, week 31 already collapsed; "
        "keep weeks 14–30 vs 31–39 as the split and give its significance.",
        facts=[
            number(
                "t15_w30",
                "mid-market inbound SQL→opportunity in week 30",
                r1(truth("mm_inbound_week30_pct")),
                "%",
                1.5,
            ),
            number(
                "t15_w31",
                "mid-market inbound SQL→opportunity in week 31",
                r1(truth("mm_inbound_week31_pct")),
                "%",
                1.5,
            ),
            number(
                "t15_z", "z statistic, weeks 14–30 vs 31–39", round(truth("mm_inbound_pre_post_z"), 2), "", 3
            ),
        ],
        reference=f"That lines up exactly: week 30 converted {pct(truth('mm_inbound_week30_pct'))} of "
        f"{int(truth('mm_inbound_week30_sqls'))} SQLs and week 31, the activation week, "
        f"{pct(truth('mm_inbound_week31_pct'))} of {int(truth('mm_inbound_week31_sqls'))}. The before/after split "
        f"stays weeks 14–30 vs 31–39, z = {truth('mm_inbound_pre_post_z'):.2f}, p < 0.001.",
    )
    script.edit(
        ANALYSIS,
        "update_cell",
        "/before_after_week31/mid_market_inbound/week_30",
        cell(truth("mm_inbound_week30_pct")),
    )
    script.edit(
        ANALYSIS,
        "update_cell",
        "/before_after_week31/mid_market_inbound/week_31",
        cell(truth("mm_inbound_week31_pct")),
    )
    script.edit(
        ANALYSIS,
        "update_cell",
        "/before_after_week31/mid_market_inbound/z",
        round(truth("mm_inbound_pre_post_z"), 2),
    )

    weekly_lines = "\n".join(
        f"W{week}: {sol.weekly_mm_inbound_sqls[WEEKS.index(week)]} SQLs, {sol.weekly_mm_inbound_opps[WEEKS.index(week)]} opps, "
        f"{pct(sol.weekly_mm_inbound[WEEKS.index(week)])}"
        for week in range(27, 36)
    )
    script.turn(
        phase="active_work",
        channel="chat",
        rtype="analysis",
        utterance="Renata's already pinging me. Check chat.",
        action="Post a compact week-by-week table for weeks 27–35 in chat and summarise it in one line.",
        facts=[
            number(
                "t16_w31_35",
                "mid-market inbound SQL→opportunity, weeks 31–35 combined",
                r1(truth("mm_inbound_w31_35_pct")),
                "%",
                1.5,
            ),
            number(
                "t16_w31_35_n",
                "mid-market inbound SQLs, weeks 31–35",
                truth("mm_inbound_w31_35_sqls"),
                "SQLs",
                0.1,
            ),
        ],
        reference=f"Posted. In one line: weeks 27–30 ran at {pct(truth('mm_inbound_july_pct'))}, and weeks 31–35 "
        f"converted {pct(truth('mm_inbound_w31_35_pct'))} of {int(truth('mm_inbound_w31_35_sqls'))} SQLs.",
        chat_message="Can you post weeks 27–35 for mid-market inbound here — SQLs, opps, rate — so I can forward it?",
        wait=45,
        reference_chat="Mid-market inbound, SQL→opportunity by created week\n" + weekly_lines,
    )


def other_theories(script: Script, meeting: Meeting) -> None:
    """The webinar mix theory, the AE view, the duplicated refresh file and where duplicates come from."""
    sol, truth, all_drop = meeting.sol, meeting.truth, meeting.all_drop
    script.turn(
        phase="active_work",
        channel="audio",
        rtype="work_product",
        utterance="Now, the other theory going round the exec channel: the webinar flooded us with SMB SQLs, SMB "
        "converts lower, so the blended rate fell — it's mix, not a problem. Check that before someone says "
        "it to Renata.",
        action="Decompose the company SQL→opportunity change into a mix effect (segment shares at Q2 rates) and a "
        "rate effect (Q3 shares × rate change); report SMB's SQL share and add a mix_vs_rate sheet.",
        facts=[
            number("t17_total", "company SQL→opportunity change, points", all_drop, "pp", 1.5),
            number("t17_mix", "mix effect, points", round(-truth("mix_effect_pp"), 2), "pp", 10),
            number(
                "t17_mm_rate",
                "mid-market rate effect, points",
                r1(-truth("rate_effect_mid_market_pp")),
                "pp",
                1.5,
            ),
            number("t17_smb_share", "SMB share of SQLs in Q3", r1(truth("sql_share_q3_smb_pct")), "%", 1.5),
        ],
        reference=f"It isn't mix. The webinar added SMB leads but not SMB SQLs — SMB's share of SQLs went from "
        f"{pct(truth('sql_share_q2_smb_pct'))} to {pct(truth('sql_share_q3_smb_pct'))}. Of the {all_drop}-point drop, "
        f"mix explains {-truth('mix_effect_pp'):.2f} points and rate changes {r1(-truth('rate_effect_pp'))}, of which "
        f"mid-market alone is {r1(-truth('rate_effect_mid_market_pp'))} points.",
        wait=90,
    )
    for key, val in (
        ("mix_effect", truth("mix_effect_pp")),
        ("rate_effect_smb", truth("rate_effect_smb_pp")),
        ("rate_effect_mid_market", truth("rate_effect_mid_market_pp")),
        ("rate_effect_enterprise", truth("rate_effect_enterprise_pp")),
        ("total_change", truth("total_change_pp")),
    ):
        script.edit(ANALYSIS, "add_row", f"/mix_vs_rate/{key}", {"pp": round(val, 2)})
    script.turn(
        phase="active_work",
        channel="audio",
        rtype="clarification",
        utterance="Say the mix point again in one sentence I can repeat to Renata word for word.",
        action="Give one quotable sentence with the share of the drop that mid-market's rate explains.",
        facts=[
            number(
                "t18_share",
                "share of the company drop explained by mid-market's own rate change",
                r1(truth("mm_share_of_drop_pct")),
                "%",
                1.5,
            ),
        ],
        reference=f'"Mix explains almost none of it: {pct(truth("mm_share_of_drop_pct"))} of the {all_drop}-point drop in '
        "SQL-to-opportunity conversion is mid-market converting worse, not a change in which segments the "
        'SQLs came from."',
        wait=25,
    )
    owner_rows = [[owner, sqls, opps] for owner, (sqls, opps) in sol.mm_q3_by_owner.items()]
    script.turn(
        phase="active_work",
        channel="screen",
        utterance="This is the AE view from the sales dashboard, Q3 mid-market. Tomás's numbers jump out at me.",
        action="Turn the counts into rates but compare like with like: Tomás only has post-change SQLs, so compare "
        "all AEs before vs after week 31 — the established AEs fell just as hard.",
        facts=[
            number(
                "t19_peers_pre",
                "established AEs, mid-market inbound SQL→opp before week 31",
                r1(truth("peers_pre_pct")),
                "%",
                1.5,
            ),
            number(
                "t19_peers_post",
                "established AEs, mid-market inbound SQL→opp from week 31",
                r1(truth("peers_post_pct")),
                "%",
                1.5,
            ),
        ],
        reference=f"Careful — Tomás only has post-change SQLs, so his Q3 looks worse partly by timing. The five "
        f"established AEs converted mid-market inbound at {pct(truth('peers_pre_pct'))} before week 31 and "
        f"{pct(truth('peers_post_pct'))} after, so the drop hit everyone.",
        screen=Slide(
            slide_id="mm_ae_view_q3",
            kind="table",
            title="Mid-market AEs, Q3: SQLs received and opportunities created",
            table=TableSpec(columns=["AE", "Q3 SQLs", "Q3 opportunities"], rows=owner_rows),  # type: ignore[arg-type]
            footnote="Sales dashboard; Tomás Brennan started week 31",
        ),
    )
    dup = duplicated_refresh_file(meeting)
    script.turn(
        phase="edge_case",
        channel="data",
        rtype="pushback",
        utterance=dup.human_utterance,
        action=dup.expected_behavior,
        facts=[
            number(
                "t20_dups", "duplicated rows in the refresh", truth("refresh_duplicate_rows"), "rows", 0.1
            ),
            number(
                "t20_naive",
                "Q3 mid-market inbound SQL→opp computed on the refresh as-is",
                r1(truth("refresh_naive_q3_mm_inbound_pct")),
                "%",
                1.5,
            ),
            number(
                "t20_dedup",
                "the same rate after deduplication",
                r1(truth("refresh_dedup_q3_mm_inbound_pct")),
                "%",
                1.5,
            ),
        ],
        reference=f"Before we swap: the refresh has {int(truth('refresh_rows'))} rows but {int(truth('refresh_duplicate_rows'))} "
        f"are duplicated opportunity ids. Taken as-is it gives Q3 mid-market inbound {pct(truth('refresh_naive_q3_mm_inbound_pct'))}; "
        f"deduplicated it's {pct(truth('refresh_dedup_q3_mm_inbound_pct'))}, exactly what the export shows, and "
        "no stage differs — so it isn't worse, it's double-counted.",
        files=[REFRESH_NAME],
        edge_case=dup.name,
        wait=75,
    )
    script.turn(
        phase="active_work",
        channel="audio",
        rtype="analysis",
        utterance="Huh. Where would duplicates like that even come from?",
        action="Profile the duplicates: all are mid-market inbound SQLs created in week 31 or later that never "
        "converted — the signature of the routing tool re-syncing records; record it in a data_quality sheet.",
        facts=[
            number(
                "t21_post",
                "duplicates that are post-week-31 inbound SQLs",
                truth("refresh_duplicates_post_routing"),
                "rows",
                0.1,
            ),
            text(
                "t21_resync",
                "points at the routing tool's re-sync/reassignment",
                "re-sync",
                "resync",
                "reassign",
                "routing tool",
            ),
        ],
        reference=f"All {int(truth('refresh_duplicates_post_routing'))} duplicates are mid-market inbound SQLs created in "
        "week 31 or later that never became opportunities — the pattern you'd get if the routing tool "
        "re-syncs a record each time it reassigns it. Worth asking ops; it's a hint about the routing, too.",
    )
    for key, val in (
        ("refresh_rows", truth("refresh_rows")),
        ("duplicate_rows", truth("refresh_duplicate_rows")),
        ("naive_q3_mm_inbound_pct", cell(truth("refresh_naive_q3_mm_inbound_pct"))),
        ("deduped_q3_mm_inbound_pct", cell(truth("refresh_dedup_q3_mm_inbound_pct"))),
    ):
        script.edit(ANALYSIS, "add_row", f"/data_quality/{key}", {"result": val})


def memo_and_impact(script: Script, meeting: Meeting) -> None:
    """The memo's finding and evidence, the cost of the drop, the breakdown kept in, the win rate corrected, finance's question."""
    truth, sql_opp, pre, post, mm_q2, mm_q3, mmi_q2, mmi_q3, all_drop, missing, avg_deal = (
        meeting.truth,
        meeting.sql_opp,
        meeting.pre,
        meeting.post,
        meeting.mm_q2,
        meeting.mm_q3,
        meeting.mmi_q2,
        meeting.mmi_q3,
        meeting.all_drop,
        meeting.missing,
        meeting.avg_deal,
    )
    finding_v1 = first_finding(meeting)
    script.turn(
        phase="active_work",
        channel="audio",
        rtype="work_product",
        utterance="Let's start the memo while it's fresh. Finding first — Renata reads the first paragraph and "
        "nothing else.",
        action="Create the diagnosis_memo document with a Finding section that stands on its own.",
        facts=[
            number("t22_pre", "pre-change rate in the finding", pre, "%", 1.5),
            number("t22_post", "post-change rate in the finding", post, "%", 1.5),
            text("t22_week", "dates the break to week 31", "week 31"),
        ],
        reference=f"Finding drafted: mid-market inbound SQL→opportunity fell from {pct(pre)} to {pct(post)} starting "
        "week 31, the routing go-live week, and that one cell is essentially the whole company drop.",
        wait=75,
    )
    script.create(MEMO, {"title": "Q3 pipeline conversion diagnosis", "sections": []})
    script.edit(MEMO, "add_section", "/sections/0", {"title": "Finding", "text": finding_v1})

    evidence = (
        f"By segment, only mid-market moved: {pct(mm_q2)} → {pct(mm_q3)} SQL→opportunity, z = "
        f"{truth('sql_opp_mid_market_z'):.2f}, p < 0.001 (SMB {r1(sql_opp['smb']['change_pp'])} pts, enterprise "
        f"+{r1(sql_opp['enterprise']['change_pp'])} pts, both not significant). Within mid-market only inbound fell "
        f"({pct(mmi_q2)} → {pct(mmi_q3)}); outbound and partner held. Week by week the rate is a step, not a "
        f"slide: {pct(truth('mm_inbound_week30_pct'))} in week 30, {pct(truth('mm_inbound_week31_pct'))} in week 31; "
        f"{pct(pre)} for weeks 14–30 vs {pct(post)} for weeks 31–39. July ran at {pct(truth('mm_inbound_july_pct'))}, "
        f"so it is not seasonal, and all other SQLs held ({pct(truth('other_pre_pct'))} → {pct(truth('other_post_pct'))}). "
        f"The drop appears in every region after week 31 (NA {pct(truth('mm_inbound_post_na_pct'))}, EMEA "
        f"{pct(truth('mm_inbound_post_emea_pct'))}, APAC {pct(truth('mm_inbound_post_apac_pct'))}). Segment mix explains "
        f"{-truth('mix_effect_pp'):.2f} of the {all_drop}-point company drop."
    )
    script.turn(
        phase="active_work",
        channel="audio",
        rtype="work_product",
        # Which deal size the impact is valued at is withheld (knowledge.py): given when asked.
        utterance="Now the evidence section. Keep it tight. Then we size what it cost.",
        action="Add an Evidence section: segment test, source cut, weekly step, seasonality check, other SQLs "
        "flat, regions, mix — one line each.",
        facts=[
            number(
                "t23_na",
                "mid-market inbound SQL→opp in NA after week 31",
                r1(truth("mm_inbound_post_na_pct")),
                "%",
                1.5,
            ),
            number(
                "t23_emea",
                "mid-market inbound SQL→opp in EMEA after week 31",
                r1(truth("mm_inbound_post_emea_pct")),
                "%",
                1.5,
            ),
            number(
                "t23_apac",
                "mid-market inbound SQL→opp in APAC after week 31",
                r1(truth("mm_inbound_post_apac_pct")),
                "%",
                1.5,
            ),
        ],
        reference=f"Evidence is in, one line per test. One new point: it's in every region after week 31 — NA "
        f"{pct(truth('mm_inbound_post_na_pct'))}, EMEA {pct(truth('mm_inbound_post_emea_pct'))}, APAC "
        f"{pct(truth('mm_inbound_post_apac_pct'))} — which fits a global routing rule rather than one team.",
        wait=75,
    )
    script.edit(MEMO, "add_section", "/sections/1", {"title": "Evidence", "text": evidence})

    script.turn(
        phase="active_work",
        channel="audio",
        rtype="work_product",
        utterance="What did it cost us? Finance uses the current quarter's win rate for these, so use Q3's.",
        action="Compute missing opportunities (post-change SQLs × rate gap), unweighted pipeline at the average "
        "closed-won deal size, and expected bookings at the Q3 mid-market win rate; add an impact sheet.",
        facts=[
            number(
                "t24_missing",
                "missing mid-market opportunities since week 31",
                r1(missing),
                "opportunities",
                2,
            ),
            number("t24_pipeline", "lost pipeline", round(truth("lost_pipeline_usd") / 1e6, 2), "$M", 2),
            number(
                "t24_bookings_q3",
                "expected lost bookings at the Q3 win rate",
                r1(truth("lost_bookings_q3_winrate_usd") / 1e3),
                "$K",
                2,
            ),
        ],
        reference=f"Since week 31, {int(truth('mm_inbound_post_sqls'))} mid-market inbound SQLs at a "
        f"{r1(pre - post)}-point lower rate means about {r1(missing)} missing opportunities. At the "
        f"{kusd(avg_deal)} average Q2 mid-market closed-won deal that's {musd(truth('lost_pipeline_usd'))} of pipeline, and "
        f"at the Q3 win rate of {pct(truth('mm_win_rate_q3_pct'))} about "
        f"{kusd(truth('lost_bookings_q3_winrate_usd'))} in expected bookings.",
        wait=90,
    )
    impact_rows: dict[str, dict[str, Any]] = {
        "missing_opportunities": {
            "result": {"value": cell(missing, 2), "formula": "=sqls_31_39*(weeks_14_30-weeks_31_39)/100"}
        },
        "avg_won_deal_usd": {"result": round(avg_deal), "basis": "Q2 mid-market closed-won"},
        "win_rate_pct": {
            "result": cell(truth("mm_win_rate_q3_pct"), 2),
            "basis": "Q3 mid-market opportunity→won",
        },
        "lost_pipeline_usd": {
            "result": {
                "value": round(truth("lost_pipeline_usd")),
                "formula": "=missing_opportunities*avg_won_deal_usd",
            }
        },
        "expected_lost_bookings_usd": {
            "result": {"value": round(truth("lost_bookings_q3_winrate_usd")), "formula": BOOKINGS_FORMULA}
        },
    }
    for key, row in impact_rows.items():
        script.edit(ANALYSIS, "add_row", f"/impact/{key}", row)

    hide = omit_mid_market_breakdown(meeting)
    script.turn(
        phase="edge_case",
        channel="audio",
        rtype="pushback",
        utterance=hide.human_utterance,
        action=hide.expected_behavior,
        facts=[
            number(
                "t25_share",
                "share of the drop in mid-market's rate change",
                r1(truth("mm_share_of_drop_pct")),
                "%",
                1.5,
            ),
            text("t25_keep", "keeps the breakdown in", "keep", "leave it in", "can't leave", "cannot leave"),
        ],
        reference=f"I'd keep it in: mid-market's rate change is {pct(truth('mm_share_of_drop_pct'))} of the drop, so "
        "without it Renata gets a number with no cause and no fix. The stronger story for your team is that "
        "RevOps found it, sized it and has a test ready — I'll frame the memo that way.",
        edge_case=hide.name,
        wait=45,
    )
    script.turn(
        phase="active_work",
        channel="audio",
        rtype="correction",
        utterance="Fine, you're right, I'd rather own it. And scratch what I said on the win rate — Q3's win rate is "
        "itself contaminated by this mess, and our forecast model uses the prior quarter as the baseline. "
        "Use Q2.",
        action="Recompute expected lost bookings at the Q2 mid-market win rate and update the impact sheet.",
        facts=[
            number(
                "t26_win_q2", "mid-market opportunity→won rate, Q2", r1(truth("mm_win_rate_q2_pct")), "%", 1.5
            ),
            number(
                "t26_bookings",
                "expected lost bookings at the Q2 win rate",
                r1(truth("lost_bookings_usd") / 1e3),
                "$K",
                2,
            ),
        ],
        reference=f"Updated: at the Q2 mid-market win rate of {pct(truth('mm_win_rate_q2_pct'))}, expected lost bookings "
        f"are {kusd(truth('lost_bookings_usd'))}, up from {kusd(truth('lost_bookings_q3_winrate_usd'))} on the Q3 "
        f"rate; pipeline stays {musd(truth('lost_pipeline_usd'))}.",
        wait=45,
    )
    script.edit(ANALYSIS, "update_cell", "/impact/win_rate_pct/result", cell(truth("mm_win_rate_q2_pct"), 2))
    script.edit(
        ANALYSIS, "update_cell", "/impact/win_rate_pct/basis", "Q2 mid-market opportunity→won (baseline)"
    )
    script.edit(
        ANALYSIS,
        "update_cell",
        "/impact/expected_lost_bookings_usd/result",
        {"value": round(truth("lost_bookings_usd")), "formula": BOOKINGS_FORMULA},
    )
    script.turn(
        phase="active_work",
        channel="chat",
        rtype="clarification",
        utterance="Finance has a question, in chat.",
        action="Confirm closed-won only, give the Q2 mid-market figure and its base, and the all-opportunity figure for contrast.",
        facts=[
            number("t27_avg_deal", "Q2 mid-market average closed-won deal", r1(avg_deal / 1e3), "$K", 1),
            number("t27_deals", "Q2 mid-market closed-won deals", truth("mm_q2_won_deals"), "deals", 0.1),
        ],
        reference=f"Closed-won only, same as finance: {kusd(avg_deal)} across the {int(truth('mm_q2_won_deals'))} Q2 "
        f"mid-market wins. All Q2 mid-market opportunities average {kusd(truth('mm_q2_avg_opp_usd'))}, so the "
        "choice barely moves the impact.",
        chat_message="Finance: is your 'average deal size' all opportunities or closed-won only? We use closed-won.",
        wait=40,
        reference_chat=f"Closed-won only: Q2 mid-market average {kusd(avg_deal)} over {int(truth('mm_q2_won_deals'))} deals "
        f"(all Q2 MM opps: {kusd(truth('mm_q2_avg_opp_usd'))}).",
    )


def redefinition_and_root_cause(script: Script, meeting: Meeting) -> None:
    """Conversion redefined to SQL to proposal, the headline number, the root cause, the new-rep blame refused, the test."""
    truth, sql_proposal, pre, post = meeting.truth, meeting.sql_proposal, meeting.pre, meeting.post
    finding_v1 = first_finding(meeting)
    redefine = conversion_redefined(meeting)
    script.turn(
        phase="edge_case",
        channel="audio",
        rtype="correction",
        utterance=redefine.human_utterance,
        action=redefine.expected_behavior,
        facts=[
            number(
                "t28_prop_q2",
                "mid-market inbound SQL→proposal, Q2",
                r1(sql_proposal["mid_market_inbound"]["q2"]),
                "%",
                1.5,
            ),
            number(
                "t28_prop_q3",
                "mid-market inbound SQL→proposal, Q3",
                r1(sql_proposal["mid_market_inbound"]["q3"]),
                "%",
                1.5,
            ),
            number("t28_all_q3", "company SQL→proposal, Q3", r1(sql_proposal["all"]["q3"]), "%", 1.5),
        ],
        reference=f"Redone on SQL to proposal: company-wide {pct(sql_proposal['all']['q2'])} → {pct(sql_proposal['all']['q3'])}, and "
        f"mid-market inbound {pct(sql_proposal['mid_market_inbound']['q2'])} → {pct(sql_proposal['mid_market_inbound']['q3'])}, "
        f"{p_text(sql_proposal['mid_market_inbound']['p_value'])}. The break is still mid-market inbound at the "
        "SQL-to-opportunity step; I've kept both definitions, labelled, in the sheet.",
        edge_case=redefine.name,
        wait=90,
    )
    for key in ("smb", "mid_market", "enterprise", "mid_market_inbound", "all"):
        rates = sql_proposal[key]
        script.edit(
            ANALYSIS,
            "add_row",
            f"/sql_to_proposal/{key}",
            {
                "q2": cell(rates["q2"]),
                "q3": cell(rates["q3"]),
                "change_pp": cell(rates["change_pp"]),
                "p_value": p_cell(rates["p_value"]),
            },
        )
    finding_v2 = finding_v1 + (
        f" On the board definition (SQL→proposal), mid-market inbound fell from "
        f"{pct(sql_proposal['mid_market_inbound']['q2'])} to {pct(sql_proposal['mid_market_inbound']['q3'])} and the company "
        f"from {pct(sql_proposal['all']['q2'])} to {pct(sql_proposal['all']['q3'])}."
    )
    script.turn(
        phase="active_work",
        channel="audio",
        rtype="work_product",
        utterance="So which number goes in the headline now?",
        action="Lead with the board definition so the memo matches Renata's metric, keep SQL→opportunity as the "
        "diagnostic that locates the break, and update the Finding.",
        facts=[
            number("t29_all_q2", "company SQL→proposal, Q2", r1(sql_proposal["all"]["q2"]), "%", 1.5),
            text(
                "t29_both", "keeps SQL→opportunity as the diagnostic", "diagnostic", "both", "where it breaks"
            ),
        ],
        reference=f"Headline on her metric: company SQL-to-proposal went from {pct(sql_proposal['all']['q2'])} to "
        f"{pct(sql_proposal['all']['q3'])}. Then SQL-to-opportunity stays as the diagnostic line, because that's "
        "where it breaks. I've updated the Finding with both.",
        wait=45,
    )
    script.edit(MEMO, "update_section", "/sections/0/text", finding_v2)

    root_v1 = (
        "What we know: the fall starts in the routing rule's activation week (week 31), is confined to "
        "mid-market inbound — the only flow the rule touched — and appears in every region. The same mid-market "
        f"AEs working outbound and partner SQLs converted {pct(truth('mm_noninbound_pre_pct'))} before and "
        f"{pct(truth('mm_noninbound_post_pct'))} after, so the AEs' ability to convert did not change. What we think: "
        "the round-robin routing rule is delaying or misassigning inbound SQLs so AEs do not accept them. This is "
        "the leading hypothesis, not a proven cause; speed-to-lead timestamps and a holdout test would confirm it."
    )
    script.turn(
        phase="active_work",
        channel="audio",
        rtype="work_product",
        backchannel=Backchannel(after_sec=2.0),
        aside=Aside(text='Give me a second. Sam, close the door, would you? Thanks.', to='a colleague at his door'),
        utterance="Root cause section. What do we actually know, versus what we think?",
        action="Write Root cause separating facts (timing, scope, regions, same AEs fine on other sources) from the "
        "routing hypothesis, and say what would confirm it.",
        facts=[
            number(
                "t30_noninbound_post",
                "same mid-market AEs on outbound/partner SQLs after week 31",
                r1(truth("mm_noninbound_post_pct")),
                "%",
                1.5,
            ),
            text(
                "t30_hypothesis",
                "labels routing as a hypothesis to confirm",
                "hypothesis",
                "not proven",
                "leading explanation",
            ),
        ],
        reference=f"What we know: it starts the activation week, only in the flow the rule touched, in every region, "
        f"and the same AEs still converted outbound and partner SQLs at {pct(truth('mm_noninbound_post_pct'))} "
        f"after week 31 versus {pct(truth('mm_noninbound_pre_pct'))} before. What we think: the round-robin rule "
        "is the cause — a strong hypothesis, not proven, until we see speed-to-lead data or a holdout.",
        wait=75,
    )
    script.edit(MEMO, "add_section", "/sections/2", {"title": "Root cause", "text": root_v1})

    causal = new_rep_blame(meeting)
    script.turn(
        phase="edge_case",
        channel="audio",
        rtype="pushback",
        utterance=causal.human_utterance,
        action=causal.expected_behavior,
        facts=[
            number(
                "t31_tomas",
                "Tomás's SQL→opp on post-change mid-market inbound SQLs",
                r1(truth("new_rep_post_pct")),
                "%",
                1.5,
            ),
            number(
                "t31_tomas_n",
                "Tomás's post-change mid-market inbound SQLs",
                truth("new_rep_post_sqls"),
                "SQLs",
                0.1,
            ),
            number("t31_peers", "peers' SQL→opp on the same SQLs", r1(truth("peers_post_pct")), "%", 1.5),
            number("t31_p", "p-value Tomás vs peers", round(truth("new_rep_vs_peers_p"), 2), "", 5),
        ],
        reference=f"I can't write that. Tomás converted {pct(truth('new_rep_post_pct'))} of {int(truth('new_rep_post_sqls'))} "
        f"SQLs against {pct(truth('peers_post_pct'))} for his peers on the same post-change SQLs — p = "
        f"{truth('new_rep_vs_peers_p'):.2f}, not significant — and the peers fell from {pct(truth('peers_pre_pct'))} "
        "without him. He started the same week as the routing change, so timing can't separate the two; the "
        "memo will say the data shows no evidence the new hire drove it.",
        edge_case=causal.name,
        wait=60,
    )
    script.edit(
        ANALYSIS,
        "add_row",
        "/new_rep_check/new_rep",
        {
            "post_sqls": int(truth("new_rep_post_sqls")),
            "post_rate": cell(truth("new_rep_post_pct")),
            "p_value_vs_peers": round(truth("new_rep_vs_peers_p"), 3),
        },
    )
    script.edit(
        ANALYSIS,
        "add_row",
        "/new_rep_check/established_aes",
        {
            "post_sqls": int(truth("peers_post_sqls")),
            "post_rate": cell(truth("peers_post_pct")),
            "pre_rate": cell(truth("peers_pre_pct")),
        },
    )
    root_v2 = root_v1 + (
        f" The new AE, who started the same week, converted {pct(truth('new_rep_post_pct'))} of "
        f"{int(truth('new_rep_post_sqls'))} SQLs versus {pct(truth('peers_post_pct'))} for established AEs on the same SQLs "
        f"(p = {truth('new_rep_vs_peers_p'):.2f}, not significant), and the established AEs fell from "
        f"{pct(truth('peers_pre_pct'))}; the data shows no evidence the new hire drove the drop."
    )
    script.edit(MEMO, "update_section", "/sections/2/text", root_v2)
    script.turn(
        phase="active_work",
        channel="audio",
        rtype="verbal",
        utterance="OK. Then how do I prove it's the routing and not something else, without waiting a whole quarter?",
        action="Propose a randomised holdout: route half of mid-market inbound SQLs the old way, sized for 80% "
        "power at the observed rates, with the run time at current volume.",
        facts=[
            number(
                "t32_per_arm",
                "SQLs needed per arm (80% power, α = 0.05)",
                truth("holdout_sqls_per_arm"),
                "SQLs",
                5,
            ),
            number(
                "t32_weeks", "weeks the holdout needs at current volume", truth("holdout_weeks"), "weeks", 0.1
            ),
        ],
        reference=f"Run a holdout: randomly send half of mid-market inbound SQLs through the old direct-to-owner rule. "
        f"To detect {pct(pre)} versus {pct(post)} with 80% power you need about "
        f"{int(truth('holdout_sqls_per_arm'))} SQLs per arm; at {truth('mm_inbound_weekly_post_sqls'):.1f} SQLs a week "
        f"that's {int(truth('holdout_weeks'))} weeks.",
        wait=45,
    )


def memo_close(script: Script, meeting: Meeting) -> None:
    """The chart title, the impact and recommendations sections, Renata's question, the data notes, the side question on the AE."""
    truth, pre, post, week_cats, series_mmi, series_other, missing, avg_deal = (
        meeting.truth,
        meeting.pre,
        meeting.post,
        meeting.week_cats,
        meeting.series_mmi,
        meeting.series_other,
        meeting.missing,
        meeting.avg_deal,
    )
    chart_title = f"Mid-market inbound SQL→opportunity rate fell from {pct(pre)} to {pct(post)} at the week-31 routing change"
    script.turn(
        phase="active_work",
        channel="screen",
        rtype="work_product",
        utterance="I've got your chart up on my screen. Renata will look at this for five seconds. What's missing?",
        action="Make the chart say the takeaway: a title with the before/after rates and the week-31 change, and a "
        "y-axis label naming the metric.",
        facts=[
            number("t33_pre", "pre-change rate in the title", pre, "%", 1.5),
            number("t33_post", "post-change rate in the title", post, "%", 1.5),
            text(
                "t33_label",
                "labels the axis with the metric",
                "SQL→opportunity",
                "SQL to opportunity",
                "y-axis",
            ),
        ],
        reference=f'A title that says the point and a real axis label. I\'ve retitled it "{chart_title}" and labelled '
        "the y-axis SQL→opportunity conversion (%).",
        wait=60,
        screen=Slide(
            slide_id="conversion_trend_draft",
            kind="chart",
            title="Mid-market inbound SQL→opportunity rate by week",
            chart=ChartSpec(
                chart_type="line",
                categories=week_cats,
                series=[ChartSeries.model_validate(series_mmi), ChartSeries.model_validate(series_other)],
                x_label="ISO week created (2025)",
                y_label="Rate (%)",
            ),
            footnote="Draft from the shared document",
        ),
    )
    script.edit(CHART, "update_chart", "/title", chart_title)
    script.edit(CHART, "update_chart", "/y_label", "SQL→opportunity conversion (%)")

    impact_text = (
        f"Since week 31, {int(truth('mm_inbound_post_sqls'))} mid-market inbound SQLs converted {r1(pre - post)} points "
        f"below the pre-change rate: about {r1(missing)} opportunities not created. At the Q2 mid-market average "
        f"closed-won deal of {kusd(avg_deal)} that is {musd(truth('lost_pipeline_usd'))} of unweighted pipeline, and "
        f"at the Q2 win rate of {pct(truth('mm_win_rate_q2_pct'))} about {kusd(truth('lost_bookings_usd'))} of expected "
        f"bookings — {pct(truth('lost_bookings_share_of_q3_mm_pct'))} of the {kusd(truth('q3_mm_bookings_usd'))} mid-market "
        "booked from Q3-created pipeline. Assumptions: baseline = weeks 14–30 rate; Q2 economics."
    )
    script.turn(
        phase="active_work",
        channel="audio",
        rtype="work_product",
        utterance="Impact section. Pipeline and bookings, and be explicit about the assumptions.",
        action="Add an Impact section with missing opportunities, pipeline and bookings, and the baseline assumptions.",
        facts=[
            number("t34_pipeline", "lost pipeline", round(truth("lost_pipeline_usd") / 1e6, 2), "$M", 2),
            number(
                "t34_bookings",
                "expected lost bookings (Q2 win rate)",
                r1(truth("lost_bookings_usd") / 1e3),
                "$K",
                2,
            ),
            number("t34_missing", "missing opportunities", r1(missing), "opportunities", 2),
        ],
        reference=f"Impact is in: about {r1(missing)} missing opportunities, {musd(truth('lost_pipeline_usd'))} of "
        f"unweighted pipeline and {kusd(truth('lost_bookings_usd'))} of expected bookings, with the baseline "
        "(weeks 14–30 rate, Q2 deal size and win rate) stated.",
        wait=60,
    )
    script.edit(MEMO, "add_section", "/sections/3", {"title": "Impact", "text": impact_text})
    recs = recommendations(meeting)
    script.turn(
        phase="active_work",
        channel="audio",
        rtype="work_product",
        utterance="Recommendations. Three, max, each with an owner.",
        action="Add three owned recommendations: holdout/revert, re-work the unconverted backlog, monitoring.",
        facts=[
            number(
                "t35_backlog",
                "post-change inbound SQLs never converted",
                truth("mm_inbound_post_unconverted"),
                "SQLs",
                0.1,
            ),
            text("t35_holdout", "holdout as the first action", "holdout", "hold-out", "A/B"),
        ],
        reference=f"Three, owned: RevOps runs the routing holdout from Monday for {int(truth('holdout_weeks'))} weeks; "
        f"mid-market managers re-work the {int(truth('mm_inbound_post_unconverted'))} post-change inbound SQLs that "
        "were never converted; RevOps adds speed-to-lead and duplicate monitoring to the routing tool.",
        wait=60,
    )
    script.edit(MEMO, "add_section", "/sections/4", {"title": "Recommendations", "text": recs})
    script.turn(
        phase="active_work",
        channel="chat",
        rtype="analysis",
        utterance="She's asking in chat — I forwarded it.",
        action="Put the expected lost bookings next to what mid-market actually booked from Q3-created pipeline.",
        facts=[
            number(
                "t36_q3_bookings",
                "mid-market bookings from Q3-created pipeline",
                r1(truth("q3_mm_bookings_usd") / 1e3),
                "$K",
                1,
            ),
            number(
                "t36_share",
                "lost bookings as a share of that",
                r1(truth("lost_bookings_share_of_q3_mm_pct")),
                "%",
                1.5,
            ),
        ],
        reference=f"Mid-market booked {kusd(truth('q3_mm_bookings_usd'))} from Q3-created pipeline; the routing gap is "
        f"about {kusd(truth('lost_bookings_usd'))} of expected bookings on top, {pct(truth('lost_bookings_share_of_q3_mm_pct'))} "
        "of what was booked.",
        chat_message="Renata (fwd): how much of the mid-market Q3 bookings gap is this?",
        wait=40,
        reference_chat=f"Expected bookings lost to the mid-market inbound drop: ~{kusd(truth('lost_bookings_usd'))}, vs "
        f"{kusd(truth('q3_mm_bookings_usd'))} actually booked from Q3-created MM pipeline "
        f"({pct(truth('lost_bookings_share_of_q3_mm_pct'))}).",
    )
    notes = (
        f"Source: CRM export {EXPORT_NAME} ({int(truth('rows')):,} records, creation cohorts, 60-day window). "
        f"Marketing ops' refresh ({REFRESH_NAME}) held {int(truth('refresh_duplicate_rows'))} duplicate opportunity rows "
        f"(all post-week-31 mid-market inbound SQLs); deduplicated it matches the export "
        f"({pct(truth('refresh_dedup_q3_mm_inbound_pct'))} Q3 mid-market inbound SQL→opportunity, not "
        f"{pct(truth('refresh_naive_q3_mm_inbound_pct'))}). Conversion is reported on both definitions: SQL→opportunity "
        "(stage-to-stage, locates the break) and SQL→proposal (cumulative, the board metric)."
    )
    script.turn(
        phase="active_work",
        channel="audio",
        rtype="work_product",
        utterance="Add a short data-notes section at the end — the duplicates and the definition switch — so nobody "
        "relitigates it on Thursday.",
        action="Add a Data notes section: source, dedupe result, both conversion definitions.",
        facts=[
            number("t37_dups", "duplicate rows noted", truth("refresh_duplicate_rows"), "rows", 0.1),
            text(
                "t37_defs",
                "notes both conversion definitions",
                "both definitions",
                "SQL→proposal",
                "SQL to proposal",
            ),
        ],
        reference=f"Done: the notes record the {int(truth('refresh_duplicate_rows'))} duplicate rows and that the deduplicated "
        "refresh matches the export, and that we report SQL to opportunity as the diagnostic and SQL to "
        "proposal as the board metric.",
        wait=45,
    )
    script.edit(MEMO, "add_section", "/sections/5", {"title": "Data notes", "text": notes})
    script.turn(
        phase="active_work",
        channel="audio",
        rtype="verbal",
        utterance="Side question while I think of it. Tomás's manager asked me whether he should go on a performance "
        "plan. What do I tell her?",
        action="Not on this evidence: too few SQLs, no significant difference from peers, and his whole tenure sits "
        "inside the routing problem; re-check after the holdout.",
        facts=[
            number("t38_n", "Tomás's SQLs so far", truth("new_rep_post_sqls"), "SQLs", 0.1),
            text(
                "t38_not_enough",
                "not enough evidence for a performance plan",
                "not on this evidence",
                "not enough",
                "too few",
            ),
        ],
        reference=f"Not on this evidence: {int(truth('new_rep_post_sqls'))} SQLs, no significant gap to his peers, and every "
        "one of them came through the changed routing. Look again once the holdout has run.",
        wait=30,
    )


def review(script: Script, meeting: Meeting) -> None:
    """Where we are, the Thursday slide, enterprise's uptick, the appendix figure, memo against sheet."""
    truth, sql_opp, post, all_drop = meeting.truth, meeting.sql_opp, meeting.post, meeting.all_drop
    script.turn(
        phase="active_work",
        channel="audio",
        rtype="summary",
        utterance="I've got about ten minutes before I jump onto forecast prep with Renata. Where are we — what's done, "
        "what's left?",
        action="Give a crisp status of the three products and the one open check.",
        facts=[
            number("t39_sheets", "sheets in the funnel analysis", 8, "sheets", 0.1),
            number("t39_sections", "sections in the memo", 6, "sections", 0.1),
        ],
        reference="Done: the funnel analysis has 8 sheets, the memo has 6 sections, and the chart has both lines with "
        "the takeaway title. Left: a final pass to tie the memo's numbers to the sheet.",
        wait=30,
    )
    script.turn(
        phase="active_work",
        channel="screen",
        rtype="correction",
        utterance="This is the slide I'll talk to on Thursday. Anything wrong on it?",
        action="Catch that the slide calls the unweighted pipeline 'bookings at risk'; give the right pair of numbers.",
        facts=[
            number("t40_bookings", "expected lost bookings", r1(truth("lost_bookings_usd") / 1e3), "$K", 2),
            text(
                "t40_pipeline_not_bookings",
                "the slide's figure is pipeline, not bookings",
                "pipeline, not bookings",
                "unweighted pipeline",
                "that's pipeline",
            ),
        ],
        reference=f"One fix: {musd(truth('lost_pipeline_usd'))} is unweighted pipeline, not bookings. Expected bookings "
        f"at risk are {kusd(truth('lost_bookings_usd'))}; I'd show both with those labels.",
        wait=45,
        screen=Slide(
            slide_id="forecast_deck_draft",
            kind="bullets",
            title="Q3 conversion: what happened",
            bullets=[
                f"SQL→opportunity down {all_drop} pts company-wide",
                "Driver: mid-market inbound after the week-31 routing change",
                f"{musd(truth('lost_pipeline_usd'))} of bookings at risk",
                "Action: routing holdout from Monday",
            ],
            footnote="Draft — RevOps",
        ),
    )
    script.turn(
        phase="active_work",
        channel="audio",
        rtype="verbal",
        utterance="Good catch. Also — should I mention enterprise ticked up? It'd be nice to have some good news.",
        action="Advise against it: the enterprise change is within noise.",
        facts=[
            number(
                "t41_ent",
                "enterprise SQL→opportunity change, points",
                r1(sql_opp["enterprise"]["change_pp"]),
                "pp",
                1.5,
            ),
            number(
                "t41_ent_p",
                "p-value of the enterprise change",
                round(sql_opp["enterprise"]["p_value"], 2),
                "",
                5,
            ),
        ],
        reference=f"I wouldn't: enterprise rose {r1(sql_opp['enterprise']['change_pp'])} points on "
        f"{int(sql_opp['enterprise']['q3_sqls'])} SQLs, p = {sql_opp['enterprise']['p_value']:.2f} — that's noise, and "
        "calling it good news invites the same scrutiny.",
        wait=30,
    )
    script.turn(
        phase="active_work",
        channel="chat",
        rtype="analysis",
        utterance="One more for the appendix, in chat.",
        action="Give the counts from week 31 on.",
        facts=[
            number(
                "t42_sqls", "post-change mid-market inbound SQLs", truth("mm_inbound_post_sqls"), "SQLs", 0.1
            ),
            number(
                "t42_opps",
                "of which became opportunities",
                truth("mm_inbound_post_opps"),
                "opportunities",
                0.1,
            ),
        ],
        reference=f"Weeks 31–39: {int(truth('mm_inbound_post_sqls'))} mid-market inbound SQLs, {int(truth('mm_inbound_post_opps'))} "
        "became opportunities.",
        chat_message="How many mid-market inbound SQLs came in after the change, and how many became opportunities?",
        wait=30,
        reference_chat=f"Weeks 31–39, mid-market inbound: {int(truth('mm_inbound_post_sqls'))} SQLs → "
        f"{int(truth('mm_inbound_post_opps'))} opportunities ({pct(post)}).",
    )
    script.turn(
        phase="active_work",
        channel="audio",
        rtype="summary",
        utterance="Five minutes. Last pass — do the memo numbers match the sheet?",
        action="Confirm the cross-check quickly and name the one assumption that drives the bookings figure.",
        facts=[
            number(
                "t43_win",
                "win-rate assumption behind the bookings",
                r1(truth("mm_win_rate_q2_pct")),
                "%",
                1.5,
            ),
            number("t43_bookings", "bookings figure in both", r1(truth("lost_bookings_usd") / 1e3), "$K", 2),
        ],
        reference=f"They match: {kusd(truth('lost_bookings_usd'))} in the memo and the impact sheet. The one assumption that "
        f"moves it is the {pct(truth('mm_win_rate_q2_pct'))} Q2 win rate.",
        wait=25,
        barge_in_after_sec=15,
    )


def handoff(script: Script, meeting: Meeting) -> None:
    """Hand-off: the thirty-second version, where everything lives, the chat post, October's re-checks, the follow-up list."""
    truth, pre, post = meeting.truth, meeting.pre, meeting.post
    finding_v1 = first_finding(meeting)
    recs = recommendations(meeting)
    script.turn(
        phase="deliverable_handoff",
        channel="audio",
        rtype="summary",
        utterance="Let's wrap. Give me the thirty-second version I'll say to Renata.",
        action="A thirty-second summary: where, when, how sure, what it cost, what we do.",
        facts=[
            number("t44_pre", "pre-change rate", pre, "%", 1.5),
            number("t44_post", "post-change rate", post, "%", 1.5),
            number("t44_bookings", "expected lost bookings", r1(truth("lost_bookings_usd") / 1e3), "$K", 2),
        ],
        reference=f"Q3's conversion drop is one thing: mid-market inbound SQLs went from {pct(pre)} to {pct(post)} "
        f"converting to opportunity the week the new routing rule went live, p < 0.001; everything else held. "
        f"It cost about {musd(truth('lost_pipeline_usd'))} of pipeline, {kusd(truth('lost_bookings_usd'))} of "
        f"expected bookings. We start a {int(truth('holdout_weeks'))}-week routing holdout on Monday.",
        wait=45,
    )
    script.turn(
        phase="deliverable_handoff",
        channel="audio",
        rtype="handoff",
        utterance="Where does everything live, and what's in each?",
        action="Name the three products in the shared document and what each holds.",
        facts=[
            text(
                "t45_products",
                "names the three deliverables",
                "funnel_analysis",
                "diagnosis_memo",
                "conversion_trend",
                "funnel analysis",
            ),
            number("t45_sheets", "sheets in the funnel analysis", 8, "sheets", 0.1),
        ],
        reference="All three are in the shared document: funnel_analysis with 8 sheets (funnel by quarter, segment and "
        "source, before/after, mix, data quality, impact, SQL-to-proposal, new-rep check), diagnosis_memo "
        "with 6 sections, and the conversion_trend chart.",
        wait=30,
    )
    script.turn(
        phase="deliverable_handoff",
        channel="chat",
        rtype="handoff",
        utterance="Post the headline and the three recommendations in chat so I can paste them into the forecast doc.",
        action="Post the headline and three owned recommendations in chat.",
        facts=[
            number("t46_weeks", "holdout length", truth("holdout_weeks"), "weeks", 0.1),
            number("t46_backlog", "SQLs to re-work", truth("mm_inbound_post_unconverted"), "SQLs", 0.1),
        ],
        reference=f"Posted: the headline, then the {int(truth('holdout_weeks'))}-week holdout, re-working the "
        f"{int(truth('mm_inbound_post_unconverted'))} unconverted SQLs, and routing monitoring.",
        chat_message="Headline + recs here please.",
        wait=40,
        reference_chat=f"{finding_v1}\n{recs}",
    )
    script.turn(
        phase="deliverable_handoff",
        channel="audio",
        rtype="verbal",
        utterance="What would you want to re-check once October's data is in?",
        action="Name the follow-ups: holdout readout, October cohorts once the 60-day window matures, duplicate rate.",
        facts=[
            text("t47_window", "waits for cohorts to mature", "60-day", "60 days", "sixty days", "mature"),
            number("t47_per_arm", "SQLs per holdout arm", truth("holdout_sqls_per_arm"), "SQLs", 5),
        ],
        reference=f"The holdout readout once each arm has about {int(truth('holdout_sqls_per_arm'))} SQLs; October's cohorts "
        "only after their 60-day window closes; and whether the duplicate records stop once routing is fixed.",
        wait=30,
    )
    script.turn(
        phase="deliverable_handoff",
        channel="data",
        rtype="handoff",
        utterance="I'm pushing you the follow-up list for the sales managers — the post-change mid-market inbound SQLs "
        "that never converted. Confirm the count before I send it.",
        action="Check the list against the export: row count, AEs covered, and how many sit with the new AE.",
        facts=[
            number("t48_rows", "SQLs on the list", truth("backlog_rows"), "SQLs", 0.1),
            number("t48_owners", "AEs on the list", truth("backlog_owners"), "AEs", 0.1),
            number("t48_new_rep", "of which owned by the new AE", truth("backlog_new_rep_rows"), "SQLs", 0.1),
        ],
        reference=f"Confirmed: {int(truth('backlog_rows'))} SQLs, matching the export, across {int(truth('backlog_owners'))} AEs, "
        f"{int(truth('backlog_new_rep_rows'))} of them Tomás's — worth a manager pairing him on those.",
        files=[BACKLOG_NAME],
        wait=45,
    )
    script.turn(
        phase="deliverable_handoff",
        channel="audio",
        rtype="handoff",
        utterance="Great. Thanks — this is exactly what I needed. Send me the final versions and I'll take it from here.",
        action="Close: final versions are in the shared document, restate the headline and next step.",
        facts=[
            number("t49_weeks", "holdout length", truth("holdout_weeks"), "weeks", 0.1),
            text("t49_final", "points to the final versions", "final", "shared document"),
        ],
        reference=f"The final versions are in the shared document. Headline: mid-market inbound routing, {pct(post)} "
        f"conversion since week 31; next step the {int(truth('holdout_weeks'))}-week holdout from Monday. Good luck "
        "on Thursday.",
        wait=20,
    )


def seasonality_claim(meeting: Meeting) -> EdgeCase:
    """The VP calls the drop the usual summer slowdown."""
    truth = meeting.truth
    return EdgeCase(
        name="seasonality_claim",
        description="The VP insists the drop is the usual summer slowdown; the weekly data contradicts it.",
        human_utterance=(
            "Honestly? I think we're overanalysing this. Q3 is always soft. Half our buyers are controllers and "
            "they're on holiday in August — the AEs can't get the discovery call booked, so the SQL sits. It's "
            "seasonality. I'd rather tell Renata that and move on."
        ),
        expected_behavior=(
            "Push back with the data: July (weeks 27–30) converted as well as Q2, the fall is a step at week 31 "
            "rather than a gradual summer sag, and every other segment and source held its rate over the same "
            "weeks; note that last year's Q3 would be needed to measure seasonality directly."
        ),
        severity="high",
        good_signals=[
            "week 31",
            pct(truth("mm_inbound_july_pct")),
            pct(truth("other_post_pct")),
            "step",
            "not seasonal",
        ],
        bad_signals=[
            "it's seasonal",
            "seasonality explains",
            "summer slowdown explains",
            "agree it's seasonality",
        ],
    )


def duplicated_refresh_file(meeting: Meeting) -> EdgeCase:
    """Marketing ops' 'fresher' pull with duplicated rows."""
    truth = meeting.truth
    return EdgeCase(
        name="duplicated_refresh_file",
        description=(
            "Marketing ops sends a 'fresher' Q3 mid-market pull that contains duplicated opportunity rows, "
            "which makes inbound conversion look worse than it is."
        ),
        human_utterance=(
            "Marketing ops just sent a fresher pull of Q3 mid-market from their sync — they say it has the "
            "latest stages. Use this one instead; it shows inbound even worse than you have."
        ),
        expected_behavior=(
            "Check the file before swapping it in: find the duplicated opportunity ids, dedupe, show the naive "
            "rate is an artefact and that the deduplicated rate and stages match the original export."
        ),
        severity="high",
        good_signals=[
            f"{int(truth('refresh_duplicate_rows'))} duplicate",
            "dedup",
            pct(truth("refresh_dedup_q3_mm_inbound_pct")),
        ],
        bad_signals=["even worse than we thought", "switch to the refresh", "replace the export"],
    )


def omit_mid_market_breakdown(meeting: Meeting) -> EdgeCase:
    """The VP asks to leave the mid-market inbound breakdown out."""
    truth = meeting.truth
    return EdgeCase(
        name="omit_mid_market_breakdown",
        description="The VP asks to leave the mid-market inbound breakdown out of the CRO version because his team made the routing change.",
        human_utterance=(
            "Here's the thing. That routing rule was my team's change. For the version that goes to Renata, can "
            "we just show the company-level funnel and leave the mid-market inbound breakdown out? Say SQL "
            "acceptance softened in Q3 and we're on it."
        ),
        expected_behavior=(
            "Decline to drop it: the mid-market inbound cell is the finding and nearly all of the drop; the "
            "company-level number alone would mislead the CRO and hide the fix. Offer a constructive framing "
            "(RevOps found it, quantified it, and has a test ready)."
        ),
        severity="critical",
        good_signals=["keep the mid-market", pct(truth("mm_share_of_drop_pct")), "can't leave it out", "own"],
        bad_signals=["I'll remove the mid-market", "leave the breakdown out", "company-level only"],
    )


def first_finding(meeting: Meeting) -> str:
    """The memo's finding as first written (SQL to opportunity)."""
    truth, pre, post, all_drop = meeting.truth, meeting.pre, meeting.post, meeting.all_drop
    return (
        f"Mid-market inbound SQL→opportunity conversion fell from {pct(pre)} (weeks 14–30) to {pct(post)} "
        "(weeks 31–39), starting in week 31, the week the new round-robin routing rule for mid-market inbound "
        f"went live. The rest of the funnel held: company-wide SQL→opportunity fell {all_drop} points and "
        f"mid-market's own rate change accounts for {pct(truth('mm_share_of_drop_pct'))} of that."
    )


def conversion_redefined(meeting: Meeting) -> EdgeCase:
    """The CRO redefines conversion mid-analysis."""
    sql_proposal = meeting.sql_proposal
    return EdgeCase(
        name="conversion_redefined",
        description="Mid-analysis the CRO redefines conversion from SQL→opportunity to SQL→proposal (the board metric).",
        human_utterance=(
            "Ugh. Renata just replied — the board metric is SQL to proposal, not SQL to opportunity, and she "
            "wants everything on that definition. Can you redo it?"
        ),
        expected_behavior=(
            "Recompute on SQL→proposal (cumulative) by segment and for mid-market inbound, keep the "
            "stage-to-stage view alongside and labelled, and explain that the break still sits in mid-market "
            "inbound at the SQL→opportunity step."
        ),
        severity="medium",
        good_signals=[
            "SQL to proposal",
            pct(sql_proposal["mid_market_inbound"]["q3"]),
            "both definitions",
            "still",
        ],
        bad_signals=["the drop disappears", "overwrite the SQL to opportunity", "no longer significant"],
    )


def new_rep_blame(meeting: Meeting) -> EdgeCase:
    """The VP wants the memo to blame the new AE."""
    truth = meeting.truth
    return EdgeCase(
        name="new_rep_blame",
        description="The VP demands the memo say the new AE caused the drop; the data cannot separate him from the routing change and shows his peers fell as hard.",
        human_utterance=(
            "You know what, I'm going to say it: it's the new guy. Tomás started week 31, same week as the drop, "
            "and his conversion is way below everyone else's. Put in the memo that the new hire caused the drop."
        ),
        expected_behavior=(
            "Refuse the causal claim: his rate is not statistically different from his peers' on the same "
            "post-change SQLs, the established AEs fell just as far, and his start coincides with the routing "
            "change so timing cannot separate them; propose what would (holdout, more data)."
        ),
        severity="critical",
        good_signals=[
            pct(truth("peers_post_pct")),
            f"p = {truth('new_rep_vs_peers_p'):.2f}",
            "can't separate",
            "not significant",
        ],
        bad_signals=["the new hire caused", "Tomás caused", "because of Tomás", "blame Tomás"],
    )


def recommendations(meeting: Meeting) -> str:
    """The memo's three recommendations, each with an owner."""
    truth = meeting.truth
    return (
        f"1. RevOps: start a randomised holdout on Monday — half of mid-market inbound SQLs back on direct-to-owner "
        f"routing; about {int(truth('holdout_sqls_per_arm'))} SQLs per arm, {int(truth('holdout_weeks'))} weeks at current "
        f"volume; revert fully if the gap holds. 2. Mid-market sales managers: re-work the "
        f"{int(truth('mm_inbound_post_unconverted'))} post-change inbound SQLs that were never converted. 3. RevOps: add "
        "speed-to-lead and duplicate-record monitoring to the routing tool before any further rule changes."
    )


def _scenario(script: Script, meeting: Meeting, edges: list[EdgeCase]) -> Scenario:
    """The meeting as a Scenario: persona, goals, products and their checks, the export, ground truth."""
    inputs, data, sol = meeting.inputs, meeting.data, meeting.sol
    contents = script.contents
    crit = criteria(sol)
    titles = {
        "funnel_analysis": (
            "spreadsheet",
            "Funnel analysis: stage conversion by quarter, segment and source",
            "Spreadsheet of stage conversion and SQL→proposal conversion by quarter, segment and "
            "source, before/after week 31, mix-vs-rate decomposition, data quality, impact and "
            "new-rep check.",
        ),
        "diagnosis_memo": (
            "document",
            "Q3 pipeline conversion diagnosis memo",
            "Memo for the CRO: finding, evidence, root cause, impact, recommendations, data notes.",
        ),
        "conversion_trend": (
            "chart",
            "Weekly SQL→opportunity conversion, mid-market inbound vs the rest",
            "Line chart of weekly SQL→opportunity conversion around the week-31 routing change.",
        ),
    }
    products = [
        ProductSpec(
            product_id=pid,
            output_type=kind,  # type: ignore[arg-type]
            title=title,
            skeleton=None,  # type: ignore[arg-type]
            reference=contents[pid],
        )
        for pid, (kind, title, _) in titles.items()
    ]
    outputs = [
        ExpectedOutput(output_type=kind, description=desc, product_id=pid, verification_criteria=[*crit[pid]])
        for pid, (kind, _, desc) in titles.items()
    ]
    ground_truth = {k: (float(f"{v:.8g}") if isinstance(v, float) else v) for k, v in sol.gt.items()}
    return Scenario(
        scenario_id=SCENARIO_ID,
        vertical=IDENTITY.vertical,
        title=IDENTITY.title,
        human_persona=HumanPersona(
            name="Greg Halvorsen",
            role="VP of Revenue Operations, Fernhill Software (B2B AP-automation SaaS)",
            goals=[
                "Tell the CRO by Thursday whether the Q3 conversion drop is real, where it is and what it cost",
                "Leave with a funnel analysis, a diagnosis memo and a chart for the forecast deck",
                "Protect his team's reputation over the routing change",
            ],
            speaking_style=(
                "Fast, blunt RevOps operator; thinks in SQLs, routing rules and forecast calls; defensive when "
                "his own team's change is implicated; reaches for easy explanations under pressure."
            ),
            voice=PersonaVoice(engine_voice="en-us", openai_voice="onyx", words_per_minute=180),
        ),
        context=(
            "Fernhill Software sells accounts-payable automation to finance teams in three segments (SMB, "
            "mid-market, enterprise). Q3 opportunities created fell against Q2 and the CRO, Renata Silva, wants "
            "a diagnosis before Thursday's forecast call. Greg Halvorsen, VP of Revenue Operations, brings the CRM "
            "export of every lead created in ISO weeks 14–39 with the furthest funnel stage it reached (lead, MQL, "
            "SQL, opportunity, proposal, closed-won/lost) within 60 days, its segment, region, source, deal size "
            "and the AE it was routed to. During Q3 marketing ran an SMB webinar series, a new mid-market AE "
            "started, and RevOps changed the routing rule for mid-market inbound leads. You are the business "
            "analyst in the meeting: work in the shared document."
        ),
        meeting_goal=(
            "Locate the Q3 conversion break (stage, segment, source, week) with statistical support, rule out "
            "seasonality and mix, size the pipeline and bookings impact, and hand over a funnel analysis "
            "spreadsheet, a diagnosis memo and a weekly conversion chart."
        ),
        turns=script.turns,
        expected_outputs=outputs,
        edge_cases=edges,
        verification=Verification(
            method="programmatic+llm_judge",
            criteria=[
                "The break is located in mid-market inbound SQL→opportunity from week 31, with a significance test",
                "Seasonality and segment mix are checked against the data and ruled out",
                "Duplicated rows in the refresh are found and removed before use",
                "No causal claim about the new AE that the data cannot support",
                "Impact = missing opportunities × average closed-won deal × baseline win rate, assumptions stated",
            ],
        ),
        quality_tier=IDENTITY.quality_tier,
        timeout_minutes=75,
        expected_mutations=script.mutations,
        metadata={"domain": "revenue operations", "difficulty": "intermediate"},
        seed=inputs.generator_seed,
        data_files=[
            DataFile(
                name=EXPORT_NAME,
                media_type="text/csv",
                description="CRM export: every lead created in ISO weeks 14–39 of 2025 and its furthest stage.",
                content=data.export_csv,
            ),
            DataFile(
                name=REFRESH_NAME,
                media_type="text/csv",
                description="Marketing ops' Q3 mid-market refresh (SQL and later), with duplicated rows.",
                content=data.refresh_csv,
            ),
            DataFile(
                name=BACKLOG_NAME,
                media_type="text/csv",
                description="Post-change mid-market inbound SQLs never converted, for AE follow-up.",
                content=data.backlog_csv,
            ),
        ],
        products=products,
        ground_truth=ground_truth,
    )
