"""The data section of a machine's page: one row per data field (its type, its initial value,
the state that declares it, its description), and how a state's fields get their values."""

from __future__ import annotations

from statewright_compiler.docs import markdown
from statewright_compiler.docs.cells import Column, Table, code, markdown_prose_cell, table
from statewright_compiler.docs.step_cells import data_initial_cell
from statewright_compiler.model import DataField, Machine

__all__ = ["binding_text", "data_table"]


def data_table(machine: Machine) -> Table | None:
    """The data fields, in spec order; None without any."""
    if not machine.data:
        return None
    columns: list[Column[DataField]] = [
        Column("Field", lambda field: code(field.name)),
        Column("Type", lambda field: code(field.annotation)),
        Column("Initial value", data_initial_cell),
        Column(
            "State",
            lambda field: code(field.state) if field.state else "",
            shown=any(field.state for field in machine.data),
        ),
        Column("Description", lambda field: markdown_prose_cell(field.description)),
    ]
    return table(columns, machine.data)


def binding_text(machine: Machine) -> str:
    """When the fields get their initial values; "" without data."""
    if not machine.data:
        return ""
    data = markdown.code(f"{machine.name}Data")
    text = (
        f"The machine's data is a {data} object ({markdown.code('machine.data')}), created with "
        "the machine; computed initial values are computed at start, in this order."
    )
    if any(field.state for field in machine.data):
        if machine.binding == "late":
            text += " A state's fields get their initial values when it is first entered."
        else:
            text += " A state's fields get theirs at start too (early binding)."
    return text
