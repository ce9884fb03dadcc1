"""The compiled machine: frozen dataclasses built once by ``check`` and read by every renderer.

Renderers (the Python module, Markdown docs, Mermaid and Graphviz diagrams, SCXML export) see
only this model, never the raw TOML, so every name in it is already checked and every derived
identifier computed. One module per part: :mod:`steps` (executable content), :mod:`expression`
and :mod:`data` (the data model), :mod:`states`, :mod:`events` (with payload types), :mod:`rules`
(rules, their concrete transitions, guard expressions, error handlers), :mod:`invokes` (child
machines) and :mod:`machine`, which
holds them all. Every name is imported from here (``from statewright_compiler.model import
Machine``); :mod:`step_text` is the one plain-text wording of steps and timers the docs and
the diagrams share.
"""

from __future__ import annotations

from statewright_compiler.model.data import DataField, TomlValue
from statewright_compiler.model.events import (
    Event,
    Import,
    LiteralValue,
    PayloadField,
    PayloadType,
    imported_names_used,
)
from statewright_compiler.model.expression import Expression, KeyPath
from statewright_compiler.model.invokes import ChildMachine, Invoke, done_invoke_value
from statewright_compiler.model.machine import Machine
from statewright_compiler.model.metadata import MetadataValue
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
    condition_text,
)
from statewright_compiler.model.states import State, StateKind
from statewright_compiler.model.steps import (
    AssignStep,
    CancelStep,
    ForeachStep,
    IfStep,
    LogStep,
    RaiseStep,
    SendStep,
    Step,
    action_names,
    step_expressions,
    walk_steps,
)

__all__ = [
    "PREVIOUS_TARGET",
    "And",
    "AssignStep",
    "CancelStep",
    "ChildMachine",
    "DataField",
    "ErrorHandler",
    "Event",
    "Expression",
    "ForeachStep",
    "GuardCall",
    "GuardExpression",
    "IfStep",
    "Import",
    "InState",
    "Invoke",
    "KeyPath",
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
    "TomlValue",
    "Transition",
    "action_names",
    "condition_text",
    "done_invoke_value",
    "imported_names_used",
    "step_expressions",
    "walk_steps",
]
