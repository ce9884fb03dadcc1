"""The shape pass over a state's ``invoke``: the child machines it runs while it is active.

``invoke`` is one table or an array of them (SCXML's ``<invoke>`` elements, in order), each
naming the child's generated machine class as ``module:<Name>Machine``. The module must be an
importable dotted name and the class an identifier, the rule ``[imports]`` follows: the text
becomes an import of that module and nothing else.
"""

from __future__ import annotations

import keyword
import re
from collections.abc import Mapping
from typing import Any, Final

from statewright_compiler.model import ChildMachine, Invoke
from statewright_compiler.spec.naming import is_identifier
from statewright_compiler.spec.positions import KeyPath
from statewright_compiler.spec.read_steps import StepReader

__all__ = ["InvokeReader", "parse_child_machine"]

_MACHINE_CLASS: Final = re.compile(r"(?P<name>[A-Z][A-Za-z0-9_]*)Machine")


def _importable(module: str) -> bool:
    return module != "__future__" and all(
        is_identifier(part) and not keyword.iskeyword(part) for part in module.split(".")
    )


def parse_child_machine(text: str) -> ChildMachine | str:
    """The child machine ``module:<Name>Machine`` names, or why the text names none."""
    module, colon, name = text.partition(":")
    if not colon:
        return "a child machine is written module:<Name>Machine (e.g. research:ResearchMachine)"
    if not _importable(module.strip()) or module != module.strip():
        return f"{module!r} is not a module path (dotted Python identifiers)"
    found = _MACHINE_CLASS.fullmatch(name)
    if found is None or keyword.iskeyword(name) or not is_identifier(name):
        return (
            f"{name!r} is not a generated machine class: its name is the child spec's machine "
            "name followed by 'Machine'"
        )
    return ChildMachine(module, found["name"])


class InvokeReader(StepReader):
    """A state's ``invoke`` table or array of tables."""

    def invokes(self, body: Mapping[str, Any], path: KeyPath) -> tuple[Invoke, ...]:
        if "invoke" not in body:
            return ()
        where: KeyPath = (*path, "invoke")
        self.chart_feature("a child machine (invoke)", where)
        value = body["invoke"]
        if isinstance(value, dict):
            tables: list[tuple[KeyPath, object]] = [(where, value)]
        elif isinstance(value, list):
            tables = [((*where, index), item) for index, item in enumerate(value)]
        else:
            self.typed(value, where, dict, "'invoke'")
            return ()
        found = []
        for table_path, table in tables:
            if not self.typed(table, table_path, dict, "an invoke"):
                continue
            assert isinstance(table, dict)
            invoke = self.invoke(table, table_path)
            if invoke is not None:
                found.append(invoke)
        return tuple(found)

    def invoke(self, table: Mapping[str, Any], path: KeyPath) -> Invoke | None:
        if not self.check_keys(table, path, "invoke") or "machine" not in table:
            return None  # a misspelt key is the one error
        text = self.text(table, "machine", path)
        child = parse_child_machine(text)
        if isinstance(child, str):
            self.reporter.report("invalid-import", (*path, "machine"), child)
        if "id" in table and "id_location" in table:
            self.reporter.report(
                "wrong-type",
                (*path, "id_location"),
                "an invoke has 'id' or 'id_location', not both",
                "a fixed id, or a data field that receives the id the machine makes up",
            )
            return None
        invoke_id = self.name(table["id"], (*path, "id"), "invoke id") if "id" in table else ""
        location = (
            self.name(table["id_location"], (*path, "id_location"), "data field")
            if "id_location" in table
            else None
        )
        params = self.params(
            table.get("params", {}), (*path, "params"), what="'params'", field="child data field"
        )
        finalize = self.steps(table, "finalize", path)
        autoforward = self.flag(table, "autoforward", path)
        if (
            isinstance(child, str)
            or invoke_id is None
            or params is None
            or ("id_location" in table and location is None)
        ):
            return None
        return Invoke(
            id=invoke_id,
            machine=child,
            line=self.reporter.line(path),
            path=path,
            id_location=location,
            params=params,
            autoforward=autoforward,
            finalize=finalize,
            description=self.text(table, "description", path),
        )
