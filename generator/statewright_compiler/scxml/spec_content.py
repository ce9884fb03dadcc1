"""An imported chart's data model as spec text: its fields, executable content and conditions.

Every expression goes through :func:`~expressions.spec_expression` (parsed, never evaluated)
and every text through :mod:`toml_text`. What a chart expression cannot become is a
:class:`~expressions.ChartExpressionError`, which :mod:`spec_text` reports at the chart's
element; what it becomes but the spec's language refuses (a name that is no data field, a type
error) the compiler reports (:mod:`compile_check`).
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Final

from statewright_compiler.scxml.content import SCXML_PROCESSOR
from statewright_compiler.scxml.data_types import ANY, field_types
from statewright_compiler.scxml.document import (
    Assign,
    Cancel,
    Data,
    Document,
    Foreach,
    If,
    Log,
    Send,
    Step,
)
from statewright_compiler.scxml.events import steps_of
from statewright_compiler.scxml.expressions import (
    ChartExpressionError,
    is_unparsed,
    names_in,
    parse_tree,
    spec_expression,
    uncalled,
)
from statewright_compiler.scxml.names import TimerNames
from statewright_compiler.scxml.toml_text import inline_table, toml_array, toml_key, toml_string

__all__ = ["FAILING", "SYSTEM_NAMES", "ContentWriter"]

#: What a chart's expression becomes when SCXML says it fails whenever it is evaluated (it does
#: not parse, it reads a name no <data> declares): an index out of range in an empty list, which
#: raises error.execution at the same moment and, being of every type (an item of ``list[Never]``),
#: fits any slot (a condition, a value of any field) for the compiler and for mypy.
FAILING: Final = "[][0]"

#: The expression language's functions (``expressions/``): names a chart may call, not read as
#: values.
FUNCTION_NAMES: Final = frozenset(
    {"In", "len", "abs", "min", "max", "int", "float", "str", "bool", "round", "hasattr"}
)
#: Names an expression may read besides the data fields.
SYSTEM_NAMES: Final = (
    FUNCTION_NAMES
    | {"_event", "_sessionid", "_name", "_ioprocessors"}
    | {"true", "false", "null", "True", "False", "None"}
)


def toml_value(value: object) -> str | None:
    """A TOML literal for a Python literal's value (None: TOML cannot hold it)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value) if isinstance(value, int) or value == value else None
    if isinstance(value, str):
        return toml_string(value)
    if isinstance(value, list):
        items = [toml_value(item) for item in value]
        return None if None in items else toml_array(item for item in items if item is not None)
    if isinstance(value, dict) and all(isinstance(key, str) for key in value):
        pairs = [(key, toml_value(item)) for key, item in value.items()]
        if any(item is None for _, item in pairs):
            return None
        return inline_table((key, item) for key, item in pairs if item is not None)
    return None


def _literal(text: str) -> object:
    """The value of a literal (``[1, 2]``, ``'a'``, ``true``), or ``...`` when it is none."""
    spelled = {"true": "True", "false": "False", "null": "None"}
    tree = parse_tree(text)
    if tree is None:
        return ...
    try:
        return ast.literal_eval(ast.fix_missing_locations(_Constants(spelled).visit(tree)))
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return ...


def _keys(content: str | None) -> list[str]:
    """The keys of ``content`` when it is a dict display with string keys (``{'n': 1}``)."""
    tree = None if content is None else parse_tree(content)
    if not isinstance(tree, ast.Dict):
        return []
    keys = [key.value for key in tree.keys if isinstance(key, ast.Constant)]
    return [key for key in keys if isinstance(key, str)]


class _Constants(ast.NodeTransformer):
    def __init__(self, spelled: Mapping[str, str]) -> None:
        self.spelled = spelled

    def visit_Name(self, node: ast.Name) -> ast.expr:
        constants = {"True": True, "False": False, "None": None}
        if node.id in self.spelled:
            return ast.copy_location(ast.Constant(constants[self.spelled[node.id]]), node)
        return node


class ContentWriter:
    """The data model's spec text for one document."""

    def __init__(
        self,
        document: Document,
        events: Mapping[str, str],
        state_name: Callable[[str], str | None],
        *,
        widen: bool = False,
    ) -> None:
        self.document = document
        self.events = events
        self.state_name = state_name
        self.types = field_types(document)
        if widen:  # see import_scxml: a union that does not compile is Any
            self.types = {name: ANY if " | " in kind else kind for name, kind in self.types.items()}
        sent_ids = [
            step.id for node in document.nodes for step in steps_of(node)
            if isinstance(step, Send) and step.id is not None
        ]  # fmt: skip
        self.timers = TimerNames(sent_ids)
        #: The texts written as a failing expression since the caller last emptied this.
        self.broken: list[tuple[str, str]] = []
        #: Whether an expression reads ``_name`` (the machine's name).
        self.reads_name = False
        #: The ids the chart's sends give (document order above, as a set here).
        self.sent_ids = set(sent_ids)
        #: The event names of each child a send may name (``#_<id>``: SCXML name to name).
        self.child_events: Mapping[str, Mapping[str, str]] = {}

    # -- expressions ----------------------------------------------------------------------------
    def expression(self, text: str, *, condition: bool = False) -> str:
        """``text`` as a spec expression, a TOML string. A text SCXML says fails whenever it
        is evaluated (it does not parse, ``1 = 1``; it reads a name that is no data field,
        ``Var9``) is written as an expression that raises ``error.execution`` then
        (:data:`FAILING`), and noted in :attr:`broken` for a
        warning."""
        names = set(names_in(text))
        self.reads_name = self.reads_name or "_name" in names
        unknown = sorted(names - SYSTEM_NAMES - set(self.types))
        functions = sorted(uncalled(text, FUNCTION_NAMES - set(self.types)))
        try:
            if unknown:
                self.broken.append((text, f"reads {', '.join(unknown)}, which no <data> declares"))
                return toml_string(FAILING)
            if functions:  # SCXML: a value that is no boolean, or an error, is error.execution
                self.broken.append((text, f"reads the function {functions[0]} as a value"))
                return toml_string(FAILING)
            return toml_string(spec_expression(text, self.state_name))
        except ChartExpressionError as error:
            if not is_unparsed(error):
                raise
            self.broken.append((text, "does not parse"))
            return toml_string(FAILING)

    def is_expression(self, text: str) -> bool:
        """Whether ``text`` reads only data fields and the expression language's names (else
        it stays a named guard, a handler the user writes)."""
        return set(names_in(text)) <= SYSTEM_NAMES | set(self.types)

    def failing(self, what: str, why: str) -> str:
        """A step SCXML says fails whenever it runs (``what``, as the chart writes it): a log
        of :data:`FAILING`, labelled with ``what``, which raises ``error.execution``
        and stops its block as the element would."""
        self.broken.append((what, why))
        return inline_table([("log", toml_string(what)), ("expr", toml_string(FAILING))])

    # -- data ------------------------------------------------------------------------------------
    def fields(self, data: Sequence[Data]) -> list[tuple[str, str]]:
        """``name = { type = ..., initial = ... }`` lines for ``data``."""
        lines = []
        for field in data:
            items = [("type", toml_string(self.types.get(field.id, ANY)))]
            if field.expr is not None:
                value = _literal(field.expr)
                rendered = None if value is ... else toml_value(value)
                if rendered is not None:
                    items.append(("initial", rendered))
                elif value is not None:
                    items.append(("expr", self.expression(field.expr)))
            lines.append((toml_key(field.id), inline_table(items)))
        return lines

    def implicit(self) -> tuple[Data, ...]:
        """The fields a ``<foreach>`` declares: its ``item`` and ``index`` when no ``<data>``
        does (SCXML 4.6)."""
        declared = {data.id for data in self.document.data}
        declared |= {data.id for node in self.document.nodes for data in node.data}
        found = [
            name
            for node in self.document.nodes
            for step in steps_of(node)
            if isinstance(step, Foreach)
            for name in (step.item, step.index)
            if name is not None and name.isidentifier() and name not in declared
        ]
        return tuple(Data(name) for name in dict.fromkeys(found))

    def payloads(self) -> dict[str, tuple[str, ...]]:
        """The payload fields of each event a ``<send>`` gives data (every one ``Any``: a
        chart's events are untyped, and one event may carry different data from each send):
        its namelist, its params, and the keys of a dict display it sends as content."""
        found: dict[str, dict[str, None]] = {}
        for node in self.document.nodes:
            for step in steps_of(node):
                if isinstance(step, Send) and step.event:
                    names = [*step.namelist, *(name for name, _ in step.params)]
                    names += _keys(step.content)
                    found.setdefault(step.event, {}).update(dict.fromkeys(names))
        return {event: tuple(names) for event, names in found.items() if names}

    # -- executable content ----------------------------------------------------------------------
    def steps(self, steps: Iterable[Step], prefix: int | None = None) -> str:
        return toml_array((self.step(step) for step in steps), prefix=prefix)

    def step(self, step: Step) -> str:
        if isinstance(step, Log):
            if step.expr is not None:
                return inline_table(
                    [("log", toml_string(step.label or "")), ("expr", self.expression(step.expr))]
                )
            items = [("log", toml_string(step.text))]
            if step.label is not None:
                items.append(("label", toml_string(step.label)))
            return inline_table(items)
        if isinstance(step, Cancel):
            if step.expr is not None:
                return inline_table([("cancel_expr", self.expression(step.expr))])
            if step.id not in self.sent_ids:  # no such send: SCXML cancels nothing
                return inline_table([("cancel_expr", toml_string(repr(step.id)))])
            return inline_table([("cancel", toml_string(self.timers.of(step.id)))])
        if isinstance(step, Send):
            return self.send(step)
        if isinstance(step, Assign):
            root = names_in(step.location)
            if not set(root) <= set(self.types):
                return self.failing(
                    f"<assign location={step.location!r}>", "assigns to no declared data field"
                )
            return inline_table(
                [("assign", self.expression(step.location)), ("expr", self.expression(step.expr))]
            )
        if isinstance(step, If):
            return self.if_step(step)
        if isinstance(step, Foreach):
            items = [("foreach", self.expression(step.array)), ("item", toml_string(step.item))]
            if step.index is not None:
                items.append(("index", toml_string(step.index)))
            return inline_table([*items, ("do", self.steps(step.steps))])
        return inline_table([("raise", toml_string(self.events[step.event]))])

    def if_step(self, step: If) -> str:
        (test, then), *others = step.branches
        items = [("if", self.expression(test, condition=True)), ("then", self.steps(then))]
        if others:
            branches = [
                inline_table(
                    [("if", self.expression(cond, condition=True)), ("then", self.steps(body))]
                )
                for cond, body in others
            ]
            items.append(("elif", toml_array(branches)))
        if step.otherwise is not None:
            items.append(("else", self.steps(step.otherwise)))
        return inline_table(items)

    def send(self, step: Send) -> str:
        items: list[tuple[str, str]] = []
        if step.eventexpr is not None:
            items.append(("eventexpr", self.expression(step.eventexpr)))
        else:
            names = self.child_events.get(step.target or "", self.events)
            items.append(("send", toml_string(names[step.event])))
        if step.idlocation is not None:
            items.append(("idlocation", toml_string(step.idlocation)))
        elif step.id is not None:  # without one the machine makes one up, as SCXML's does
            items.append(("id", toml_string(self.timers.of(step.id))))
        if step.delayexpr is not None:
            items.append(("delayexpr", self.expression(step.delayexpr)))
        else:
            items.append(("delay", toml_string(step.delay or "0s")))
        if step.target is not None:
            items.append(("target", toml_string(step.target)))
        if step.type is not None and step.type not in SCXML_PROCESSOR:
            items.append(("type", toml_string(step.type)))
        for key, value in (("targetexpr", step.targetexpr), ("typeexpr", step.typeexpr)):
            if value is not None:
                items.append((key, self.expression(value)))
        namelist = [name for name in step.namelist if name in self.types]
        if namelist:
            items.append(("namelist", toml_array(map(toml_string, namelist))))
        # A namelist name no <data> declares fails the send, as a value that fails does.
        params = [*step.params, *((name, name) for name in step.namelist if name not in namelist)]
        if params:
            pairs = [(name, self.expression(expr)) for name, expr in params]
            items.append(("data", inline_table(pairs)))
        if step.content is not None:
            items.append(("content", self.expression(step.content)))
        return inline_table(items)

    def donedata(self, donedata: tuple[tuple[str, str], ...] | str) -> str:
        if isinstance(donedata, str):
            return self.expression(donedata)
        return inline_table((name, self.expression(expr)) for name, expr in donedata)
