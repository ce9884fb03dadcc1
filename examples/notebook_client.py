"""The Notebook-BCC v2 client (seed 000): navigate a small workflow, recover from an error.

The v2 spec has no guards or actions, so the machine needs no handlers: the client decides
which event to send from the Planning API's answers (faked here). An invalid event returns
False and is logged, as the protocol says.
Run (after `make setup`): .venv/bin/python examples/notebook_client.py
"""

from __future__ import annotations

import logging
import sys

from notebook_bcc_v2 import NotebookBccV2Event as Ev
from notebook_bcc_v2 import NotebookBccV2Machine

# Two behaviours with their actions; Planning says the step is done after the second one.
BEHAVIOURS = [["load csv", "print shape"], ["plot histogram"]]


def main() -> None:
    logging.basicConfig(
        level=logging.WARNING, format="  log %(levelname)s: %(message)s", stream=sys.stdout
    )
    fsm: NotebookBccV2Machine[None] = NotebookBccV2Machine(None)
    fsm.start_workflow()
    fsm.start_step()
    fsm.start_behavior()  # Planning: targetAchieved false
    for number, actions in enumerate(BEHAVIOURS):
        fsm.start_action()  # Generating API returned the actions
        for index, _action in enumerate(actions):
            fsm.complete_action()
            if index < len(actions) - 1:
                fsm.next_action()
        fsm.complete_behavior()
        if number < len(BEHAVIOURS) - 1:
            fsm.next_behavior()  # feedback: continue_behaviors true
    fsm.complete_step()  # feedback: targetAchieved true

    # Invalid: COMPLETE_WORKFLOW is not allowed in step_completed -> False, and the client logs
    # it (the protocol's "returns False and logs"; to the runtime a rejection is no warning).
    accepted = fsm.try_send(Ev.COMPLETE_WORKFLOW)
    if not accepted:
        logging.getLogger("notebook_client").warning(
            "invalid transition: %s --COMPLETE_WORKFLOW--> ?", fsm.state
        )
    print("COMPLETE_WORKFLOW accepted?", accepted)

    fsm.next_step()
    fsm.fail()  # the step failed
    print("running after FAIL?", fsm.in_tag("running"))
    fsm.start_behavior()  # 容错重启 Behavior from the error state
    print("running after restart?", fsm.in_tag("running"))

    record = fsm.fsm_record()
    print("last transition:", record["last_transition"])
    for step in record["history"]:
        print(f"  {step['from']} --{step['event']}--> {step['to']}")


if __name__ == "__main__":
    main()
