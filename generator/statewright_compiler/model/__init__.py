"""The compiled machine: frozen dataclasses built once by ``check`` and read by every renderer.

Renderers (the Python module, Markdown docs, Mermaid and Graphviz diagrams, SCXML export) see
only this model, never the raw TOML, so every name in it is already checked and every derived
identifier computed. One module per part: :mod:`steps` (executable content), :mod:`states`,
:mod:`events` (with payload types), :mod:`rules` (rules, their concrete transitions, guard
expressions, error handlers) and :mod:`machine`, which holds them all. Every name is imported
from here (``from statewright_compiler.model import Machine``); :mod:`step_text` is the one
plain-text wording of steps and timers the docs and the diagrams share.
"""

from __future__ import annotations

from statewright_compiler.model.events import (
    Event,
    Import,
    LiteralValue,
    PayloadField,
    PayloadType,
    imported_names_used,
)
from statewright_compiler.model.machine import Machine
from statewright_compiler.model.rules import (
    PREVIOUS_TARGET,
    And,
    ErrorHandler,
    GuardCall,
    GuardExpression,
    InState,
    Not,
    Or,
    Rule,
    SourceSelector,
    Transition,
)
from statewright_compiler.model.states import MetadataValue, State, StateKind
from statewright_compiler.model.steps import (
    CancelStep,
    LogStep,
    RaiseStep,
    SendStep,
    Step,
    action_names,
)

__all__ = [
    "PREVIOUS_TARGET",
    "And",
    "CancelStep",
    "ErrorHandler",
    "Event",
    "GuardCall",
    "GuardExpression",
    "Import",
    "InState",
    "LiteralValue",
    "LogStep",
    "Machine",
    "MetadataValue",
    "Not",
    "Or",
    "PayloadField",
    "PayloadType",
    "RaiseStep",
    "Rule",
    "SendStep",
    "SourceSelector",
    "State",
    "StateKind",
    "Step",
    "Transition",
    "action_names",
    "imported_names_used",
]
