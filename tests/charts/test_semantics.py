"""SCXML's behaviours pinned on small charts, with the exact calls they make: the initial
configuration, selecting transitions (document order, inner first, conflicts between regions),
exit and entry order, internal and external transitions, history, completion and internal events.

Each chart runs on the compiled machine and on the reference interpreter (:func:`run` checks
that they agree), so these double as hand-picked cases for it. Calls are written compactly: an
action by its name (``"x!"`` when it raised), a guard as ``"g=True"``, a log step as
``"log:text"``.
"""

from __future__ import annotations

from tests.charts.scenarios import COMPOUND, REGIONS, calls, chart, run


# -- the initial configuration --------------------------------------------------------------------
def test_an_initial_list_enters_one_state_per_region_and_the_other_regions_defaults() -> None:
    spec = chart(
        """
[states.p]
kind = "parallel"
[states.a]
parent = "p"
[states.a1]
parent = "a"
entry = ["en_a1"]
[states.a2]
parent = "a"
entry = ["en_a2"]
[states.b]
parent = "p"
[states.b1]
parent = "b"
entry = ["en_b1"]
[states.b2]
parent = "b"
entry = ["en_b2"]
[states.c]
parent = "p"
[states.c1]
parent = "c"
entry = ["en_c1"]
on.GO = "a1"
""",
        initial='["b2", "a2"]',
    )
    (started,) = run(spec)
    # Every target's descendants are added before any target's ancestors (computeEntrySet):
    # b2's parallel ancestor must not enter a's default a1 before a2 is known to be a target.
    assert started.leaves == {"a2", "b2", "c1"}
    assert calls(started) == ["en_a2", "en_b2", "en_c1"]


# -- selecting transitions ---------------------------------------------------------------------


def test_regions_take_their_transitions_in_document_order() -> None:
    _, go = run(chart(REGIONS, initial='"p"'), ["GO"])
    # Both are taken: exits innermost first in reverse document order, then the transitions'
    # actions in document order, then entries outermost first in document order.
    assert calls(go) == ["ex_b1", "ex_a1", "t_a", "t_b", "en_a2", "en_b2"]
    assert go.leaves == {"a2", "b2"}


def test_the_first_transition_in_document_order_wins() -> None:
    spec = chart(
        """
[states.s]
on.GO = [{ to = "x", guard = "g", actions = ["first"] }, { to = "y", actions = ["second"] }]
on."*" = { to = "y", actions = ["any"] }
[states.x]
[states.y]
""",
        initial='"s"',
    )
    _, taken = run(spec, ["GO"], guards={"g": [True]})
    assert calls(taken) == ["g=True", "first"]
    _, passed_over = run(spec, ["GO"], guards={"g": [False]})
    assert calls(passed_over) == ["g=False", "second"]  # before "*", written after it


def test_an_inner_transition_preempts_its_ancestors() -> None:
    spec = chart(
        """
[states.s]
on.GO = { to = "z", actions = ["outer"] }
[states.s1]
parent = "s"
on.GO = { to = "s2", actions = ["inner"] }
[states.s2]
parent = "s"
[states.z]
""",
        initial='"s"',
    )
    _, first, second = run(spec, ["GO", "GO"])
    assert calls(first) == ["inner"]
    assert first.leaves == {"s2"}
    assert calls(second) == ["outer"]  # s2 has none: s's applies
    assert second.leaves == {"z"}


def test_between_regions_the_earlier_transition_wins_a_conflict() -> None:
    spec = chart(
        REGIONS.replace(
            'on.GO = { to = "a2", actions = ["t_a"] }', 'on.GO = { to = "z", actions = ["t_a"] }'
        ),
        initial='"p"',
    )
    _, go = run(spec, ["GO"])
    # a1's transition leaves p, so b1's (which exits b1, also left) conflicts with it and, as b1
    # is not a descendant of a1, is dropped.
    assert calls(go) == ["ex_b1", "ex_b", "ex_a1", "ex_a", "ex_p", "t_a", "en_z"]
    assert go.leaves == {"z"}


def test_a_region_s_own_transition_preempts_its_parallel_ancestor_s() -> None:
    spec = chart(
        REGIONS.replace('on.GO = { to = "a2", actions = ["t_a"] }\n', "")
        + '\n[[transitions]]\nfrom = ["p"]\nevent = "GO"\nto = "z"\nactions = ["t_p"]\n',
        initial='"p"',
    )
    _, go = run(spec, ["GO"])
    # a1 finds p's transition and b1 its own; b1's source is a descendant of p, so it preempts.
    assert calls(go) == ["ex_b1", "t_b", "en_b2"]
    assert go.leaves == {"a1", "b2"}


# -- exiting and entering ----------------------------------------------------------------------


def test_an_external_transition_of_a_compound_source_exits_and_enters_it() -> None:
    _, go = run(chart(COMPOUND.replace("TYPE", "external"), initial='"s"'), ["GO"])
    assert calls(go) == ["ex_s1", "ex_s", "t", "en_s", "en_s2"]


def test_an_internal_transition_of_a_compound_source_stays_in_it() -> None:
    started, go, again = run(
        chart(COMPOUND.replace("TYPE", "internal"), initial='"s"'), ["GO", "GO"]
    )
    assert calls(started) == ["en_s", "en_s1"]
    assert calls(go) == ["ex_s1", "t", "en_s2"]
    assert calls(again) == ["ex_s2", "t", "en_s2"]  # its own target: exited and entered again
    assert go.leaves == again.leaves == {"s2"}


def test_then_steps_run_after_the_targets_were_entered() -> None:
    spec = chart(
        """
[states.s]
exit = ["ex_s"]
on.GO = { to = "t", actions = ["during"], then = ["after", { log = "done" }] }
[states.t]
entry = ["en_t"]
[states.t1]
parent = "t"
entry = ["en_t1"]
""",
        initial='"s"',
    )
    _, go = run(spec, ["GO"])
    assert calls(go) == ["ex_s", "during", "en_t", "en_t1", "after", "log:done"]


# -- history --------------------------------------------------------------------------------------
HISTORY = """
[states.s]
on.BACK = "out"
[states.h]
parent = "s"
kind = "history"
history = "KIND"
[states.t]
parent = "s"
entry = ["en_t"]
[states.t1]
parent = "t"
entry = ["en_t1"]
on.GO = "t2"
[states.t2]
parent = "t"
entry = ["en_t2"]
[states.u]
parent = "s"
[states.out]
on.GO = "h"
"""


def test_shallow_history_restores_the_child_and_its_default_below() -> None:
    run_ = run(chart(HISTORY.replace("KIND", "shallow"), initial='"s"'), ["GO", "BACK", "GO"])
    assert run_[-1].leaves == {"t1"}  # t was active; t's own default t1 is entered in it
    assert calls(run_[-1]) == ["en_t", "en_t1"]


def test_deep_history_restores_the_leaves() -> None:
    run_ = run(chart(HISTORY.replace("KIND", "deep"), initial='"s"'), ["GO", "BACK", "GO"])
    assert run_[-1].leaves == {"t2"}
    assert calls(run_[-1]) == ["en_t", "en_t2"]


def test_a_history_default_and_its_actions_apply_only_while_nothing_is_remembered() -> None:
    spec = chart(
        """
[states.out]
on.GO = "h"
[states.s]
entry = ["en_s"]
on.BACK = "out"
[states.h]
parent = "s"
kind = "history"
history = "shallow"
default = { to = "s2", actions = ["by_default"] }
[states.s1]
parent = "s"
[states.s2]
parent = "s"
entry = ["en_s2"]
on.OTHER = "s1"
""",
        initial='"out"',
    )
    _, first, _, _, again = run(spec, ["GO", "OTHER", "BACK", "GO"])
    assert calls(first) == ["en_s", "by_default", "en_s2"]  # after the parent's entry
    assert first.leaves == {"s2"}
    assert calls(again) == ["en_s"]  # s1 was remembered: no default, no default actions
    assert again.leaves == {"s1"}


# -- completion and internal events ----------------------------------------------------------------
def test_a_compound_state_is_done_when_it_enters_a_final_child() -> None:
    spec = chart(
        """
[states.job]
on."done.state.job" = { to = "after", actions = ["job_done"] }
[states.working]
parent = "job"
on.GO = "finished"
[states.finished]
parent = "job"
kind = "final"
entry = ["en_finished"]
[states.after]
""",
        initial='"job"',
    )
    _, go = run(spec, ["GO"])
    assert calls(go) == ["en_finished", "job_done"]
    assert go.leaves == {"after"}


def test_a_parallel_state_is_done_when_every_region_is() -> None:
    spec = chart(
        """
[states.p]
kind = "parallel"
on."done.state.a" = { to = [], actions = ["a_done"] }
on."done.state.b" = { to = [], actions = ["b_done"] }
on."done.state.p" = { to = "after", actions = ["p_done"] }
[states.a]
parent = "p"
[states.a1]
parent = "a"
on.GO = "a_end"
[states.a_end]
parent = "a"
kind = "final"
[states.b]
parent = "p"
[states.b1]
parent = "b"
on.BACK = "b_end"
[states.b_end]
parent = "b"
kind = "final"
[states.after]
""",
        initial='"p"',
    )
    _, go, back = run(spec, ["GO", "BACK"])
    assert calls(go) == ["a_done"]
    assert go.leaves == {"a_end", "b1"}
    assert calls(back) == ["b_done", "p_done"]  # the region's event first, then the parallel's
    assert back.leaves == {"after"}


def test_raised_events_are_processed_in_order_before_the_next_external_event() -> None:
    spec = chart(
        """
[states.s]
on.GO = { to = "t", actions = [{ raise = "BACK" }, "t_go", { raise = "OTHER" }] }
[states.t]
entry = ["en_t", { raise = "OTHER" }]
on.BACK = { to = [], actions = ["on_back"] }
on.OTHER = [{ to = [], guard = "first_other", actions = ["on_other"] }, { to = "u" }]
[states.u]
entry = ["en_u"]
""",
        initial='"s"',
    )
    _, go, again = run(spec, ["GO", "GO"], guards={"first_other": [True, False]})
    # Queue after the microstep: BACK, OTHER (the transition's), OTHER (t's entry).
    assert calls(go) == [
        "t_go", "en_t", "on_back", "first_other=True", "on_other", "first_other=False", "en_u"
    ]  # fmt: skip
    assert go.leaves == {"u"}
    assert again.outcome == "rejected"


def test_a_top_level_final_state_finishes_the_machine() -> None:
    spec = chart(
        """
[states.s]
always = { to = "end", guard = "ready" }
[states.end]
kind = "final"
entry = ["en_end"]
exit = ["ex_end"]
""",
        initial='"s"',
    )
    _, go = run(spec, ["GO"], guards={"ready": [False, True]})
    assert go.outcome == "rejected"  # the external event finds no transition; eventless are
    (started,) = run(spec, guards={"ready": [True]})  # not looked at again
    assert started.finished and started.leaves == {"end"}  # and stays there
    # SCXML's exitInterpreter: the stopped machine's active states' onexit runs (W3C test 236)
    assert calls(started) == ["ready=True", "en_end", "ex_end"]
