"""``statewright import-scxml`` and ``statewright export-scxml``: an SCXML chart translated into
a spec, and a spec written as SCXML 1.0 (:mod:`~statewright_compiler.scxml`); any error means
nothing is written."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from statewright_compiler.commands.common import UsageError, compile_one, print_diagnostics
from statewright_compiler.diagnostics import ExitCode
from statewright_compiler.emit import Artifact, write_artifacts
from statewright_compiler.pipeline import display_path

__all__ = ["command_export_scxml", "command_import_scxml"]


def command_import_scxml(arguments: argparse.Namespace) -> ExitCode:
    """Translate an SCXML chart into a spec; any error means nothing is written."""
    from statewright_compiler.scxml.importer import import_scxml
    from statewright_compiler.scxml.spec_text import spec_files

    source = Path(arguments.scxml)
    if not source.is_file():
        raise UsageError(f"no such SCXML file: {source}")
    spec, diagnostics = import_scxml(source, display_path(source))
    print_diagnostics(diagnostics)
    if spec is None:
        print("statewright: nothing written: fix the errors above", file=sys.stderr)
        return ExitCode.FAILURE
    if arguments.output:
        write_artifacts(artifacts := spec_files(spec, arguments.output))
        print("\n".join(f"wrote {display_path(artifact.path)}" for artifact in artifacts))
    elif spec.children:
        raise UsageError("the chart invokes other charts, a spec each: give -o SPEC.toml")
    else:
        sys.stdout.write(spec.text)
    return ExitCode.OK


def command_export_scxml(arguments: argparse.Namespace) -> ExitCode:
    """Write a spec as SCXML 1.0; anything SCXML cannot say means nothing is written."""
    from statewright_compiler.scxml.exporter import export_scxml

    spec = Path(arguments.spec)
    if not spec.is_file():
        raise UsageError(f"no such spec file: {spec}")
    machine = compile_one(spec)
    if machine is None:
        return ExitCode.FAILURE
    text, diagnostics = export_scxml(machine, display_path(spec))
    print_diagnostics(diagnostics)
    if text is None:
        print("statewright: nothing written: fix the errors above", file=sys.stderr)
        return ExitCode.FAILURE
    if arguments.output:
        write_artifacts([Artifact(Path(arguments.output), text)])
        print(f"wrote {display_path(Path(arguments.output))}")
    else:
        sys.stdout.write(text)
    return ExitCode.OK
