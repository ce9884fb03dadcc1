"""The ``statewright`` command: init, generate, check, validate, diff, check-store, docs,
diagram, tools, schema, import-scxml, export-scxml, mcp, replay.

Exit codes (:class:`~diagnostics.ExitCode`): 0 ok, 1 invalid spec or stale output, 2 usage.
Bad input is reported as diagnostics, never as a traceback.
"""

from __future__ import annotations

import argparse
import functools
import importlib
import sys
from collections.abc import Sequence
from pathlib import Path

from statewright_compiler import __version__
from statewright_compiler.commands.common import UsageError, compile_one, print_diagnostics
from statewright_compiler.config import Config, ConfigError, find_config
from statewright_compiler.diagnostics import ExitCode, SpecError
from statewright_compiler.diagrams.formats import (
    DIAGRAM_FORMATS,
    FORMAT_BY_EXTENSION,
    format_for_path,
)
from statewright_compiler.emit import (
    Artifact,
    orphaned_modules,
    stale_artifacts,
    unified_diff,
    write_artifacts,
    write_file,
)
from statewright_compiler.pipeline import BuildResult, build, display_path
from statewright_compiler.spec.schema import schema_json

__all__ = ["main"]


def _specs(arguments: argparse.Namespace, config: Config) -> list[Path]:
    specs = [Path(spec) for spec in arguments.specs] if arguments.specs else config.spec_paths()
    if not specs:
        raise UsageError(
            f"no spec files found (patterns {', '.join(config.specs)} in {config.root})"
        )
    missing = [spec for spec in specs if not spec.is_file()]
    if missing:
        raise UsageError(f"no such spec file: {', '.join(map(str, missing))}")
    return specs


def _build(arguments: argparse.Namespace) -> tuple[BuildResult, Config, Path]:
    config = find_config(Path.cwd())
    output = Path(arguments.output) if arguments.output else config.output
    docs = None if arguments.no_docs else (Path(arguments.docs) if arguments.docs else config.docs)
    specs = _specs(arguments, config)
    result = build(specs, output, docs, config.root)
    if config.schema is not None and not arguments.specs:
        result.artifacts.append(Artifact(config.schema, schema_json()))
    print_diagnostics(result.diagnostics)
    return result, config, output


def _version_bumps(arguments: argparse.Namespace, config: Config, result: BuildResult) -> bool:
    """False (errors printed) when a spec changed incompatibly since the deploy baseline, if
    any, and kept its version (see :mod:`commands.diff`)."""
    from statewright_compiler.commands.diff import versions_bumped
    from statewright_compiler.deploy.sources import SourceError

    baseline = arguments.against or config.deploy_baseline
    specs = [(spec, display_path(spec, config.root)) for spec in _specs(arguments, config)]
    try:
        return not baseline or versions_bumped(specs, result.machines, baseline)
    except SourceError as error:
        raise UsageError(f"deploy baseline {baseline!r}: {error}") from None


def _orphans(result: BuildResult, output: Path, arguments: argparse.Namespace) -> list[Path]:
    """Only a whole-project run (no spec arguments) may call other modules orphans."""
    if arguments.specs:
        return []
    return orphaned_modules(output, [artifact.path for artifact in result.artifacts])


def command_generate(arguments: argparse.Namespace) -> ExitCode:
    result, _, output = _build(arguments)
    if result.failed:
        print("statewright: nothing written: fix the errors above", file=sys.stderr)
        return ExitCode.FAILURE
    changed = write_artifacts(result.artifacts, _orphans(result, output, arguments))
    for path in changed:
        print(f"wrote {display_path(path)}" if path.exists() else f"removed {display_path(path)}")
    if not changed:
        print(f"statewright: {len(result.artifacts)} file(s) up to date")
    return ExitCode.OK


def command_check(arguments: argparse.Namespace) -> ExitCode:
    result, config, output = _build(arguments)
    if result.failed:
        return ExitCode.FAILURE
    bumped = _version_bumps(arguments, config, result)
    stale = stale_artifacts(result.artifacts)
    orphans = _orphans(result, output, arguments)
    for artifact in stale:
        print(f"stale: {display_path(artifact.path)} (run `statewright generate`)", file=sys.stderr)
        if arguments.diff:
            print(unified_diff(artifact, display_path(artifact.path)), end="")
    for path in orphans:
        print(f"stale: {display_path(path)} has no spec any more", file=sys.stderr)
    if stale or orphans or not bumped:
        return ExitCode.FAILURE
    print(f"statewright: {len(result.artifacts)} generated file(s) up to date")
    return ExitCode.OK


def command_validate(arguments: argparse.Namespace) -> ExitCode:
    failed = False
    for spec in _specs(arguments, find_config(Path.cwd())):
        machine = compile_one(spec)
        if machine is None:
            failed = True
            continue
        counts = f"{len(machine.states)} states, {len(machine.events)} events, "
        print(f"{display_path(spec)}: ok ({counts}{len(machine.transitions)} transitions)")
    return ExitCode.FAILURE if failed else ExitCode.OK


def command_diff(arguments: argparse.Namespace) -> ExitCode:
    from statewright_compiler.commands.diff import run_diff

    return run_diff(arguments.old, arguments.new, arguments.format, Path.cwd(), stub=arguments.stub)


def command_init(arguments: argparse.Namespace) -> ExitCode:
    from statewright_compiler.commands.init import InitConflict, Step, plan_init, write_plan

    root = Path.cwd()
    try:
        plan = plan_init(root, arguments.name, pre_commit=not arguments.no_pre_commit)
    except ValueError as error:
        raise UsageError(str(error)) from None
    except InitConflict as error:
        print(f"statewright: error: {error}", file=sys.stderr)
        print("statewright: nothing written", file=sys.stderr)
        return ExitCode.FAILURE
    write_plan(plan)
    for planned in plan:
        print(f"{planned.step.value} {display_path(planned.path, root)}")
    if all(planned.step is Step.KEEP for planned in plan):
        print("statewright: already set up; nothing changed")
    else:
        print("next: statewright generate   (then import the module from the output folder)")
    return ExitCode.OK


def command_tools(arguments: argparse.Namespace) -> ExitCode:
    """Each state's events as tool definitions (what ``machine.tools()`` gives at run time)."""
    import json

    from statewright_compiler.commands.tools import tool_definitions

    machine = compile_one(Path(arguments.spec))
    if machine is None:
        return ExitCode.FAILURE
    states = [state.name for state in machine.states if state.is_leaf]
    if arguments.state is not None and arguments.state not in states:
        raise UsageError(
            f"{arguments.state!r} is not a state of {machine.name}"
            + (" the machine can be in (a leaf state)" if machine.chart else "")
        )
    chosen = [arguments.state] if arguments.state else states
    by_state = tool_definitions(machine, arguments.format)
    sys.stdout.write(json.dumps({name: by_state[name] for name in chosen}, indent=2) + "\n")
    return ExitCode.OK


def command_schema(arguments: argparse.Namespace) -> ExitCode:
    sys.stdout.write(schema_json())
    return ExitCode.OK


def command_docs(arguments: argparse.Namespace) -> ExitCode:
    arguments.output, arguments.no_docs, arguments.docs = None, False, arguments.docs_output
    result, _, _ = _build(arguments)
    if result.failed:
        return ExitCode.FAILURE
    pages = [artifact for artifact in result.artifacts if artifact.path.suffix == ".md"]
    for path in write_artifacts(pages):
        print(f"wrote {display_path(path)}")
    return ExitCode.OK


def _diagram_format(arguments: argparse.Namespace) -> str:
    """``--format``, else the one the output file's extension names, else Mermaid (stdout)."""
    if arguments.format is not None:
        return str(arguments.format)
    if arguments.output is None:
        return DIAGRAM_FORMATS[0]
    chosen = format_for_path(Path(arguments.output))
    if chosen is None:
        raise UsageError(
            f"cannot tell the diagram format from {arguments.output!r}: give --format "
            f"({', '.join(DIAGRAM_FORMATS)}) or name the file {', '.join(FORMAT_BY_EXTENSION)}"
        )
    return chosen


def command_diagram(arguments: argparse.Namespace) -> ExitCode:
    from statewright_compiler import diagrams

    diagram_format = _diagram_format(arguments)
    machine = compile_one(Path(arguments.spec))
    if machine is None:
        return ExitCode.FAILURE
    try:
        data = diagrams.render_diagram(
            machine, diagram_format, expand_wildcards=arguments.expand_wildcards
        )
    except diagrams.DiagramError as error:  # Graphviz missing, or failing on this input
        print(f"statewright: {error}", file=sys.stderr)
        return ExitCode.FAILURE
    if arguments.output:
        write_file(Path(arguments.output), data)
    else:
        sys.stdout.buffer.write(data)
    return ExitCode.OK


@functools.cache
def _parser() -> argparse.ArgumentParser:
    """The command line, built once per process (~4 ms: a dozen subcommands): a process that runs
    several commands (the test suite runs a thousand in-process) reuses it; parsing never changes
    it."""
    parser = argparse.ArgumentParser(
        prog="statewright", description="Compile TOML state-machine specs into typed Python."
    )
    parser.add_argument("--version", action="version", version=f"statewright {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def add(name: str, help_text: str, handler: object) -> argparse.ArgumentParser:
        command = commands.add_parser(name, help=help_text, description=help_text)
        command.set_defaults(handler=handler)
        return command

    for name, help_text, handler in [
        ("generate", "compile specs into generated modules and docs pages", command_generate),
        ("check", "exit 1 if a spec is invalid or a generated file is stale", command_check),
    ]:
        command = add(name, help_text, handler)
        command.add_argument(
            "specs", nargs="*", help="spec files (default: [tool.statewright] specs)"
        )
        command.add_argument("-o", "--output", help="folder for generated modules")
        command.add_argument("--docs", help="folder for generated docs pages")
        command.add_argument("--no-docs", action="store_true", help="do not generate docs pages")
        if name == "check":
            command.add_argument("--diff", action="store_true", help="print a unified diff")
            command.add_argument(
                "--against",
                metavar="REV",
                help="refuse a spec changed incompatibly since git revision REV without a "
                "version bump (default: [tool.statewright] deploy_baseline)",
            )
    init = add(
        "init", "set this folder up: config, a starter spec, its schema, a hook", command_init
    )
    init.add_argument("--name", default="Task", help="the starter machine's name (default: Task)")
    init.add_argument(
        "--no-pre-commit", action="store_true", help="do not write .pre-commit-config.yaml"
    )
    validate = add("validate", "check specs and report problems", command_validate)
    validate.add_argument("specs", nargs="*", help="spec files (default: [tool.statewright] specs)")
    add("schema", "print the JSON Schema of the spec language", command_schema)
    diff = add("diff", "classify every change between two versions of a spec", command_diff)
    for side in ("old", "new"):
        diff.add_argument(side, metavar=side.upper(), help="a spec file, or REV:path (git)")
    diff.add_argument(
        "--format", choices=["text", "json"], default="text", help="default: text (docs/diff.md)"
    )
    diff.add_argument(
        "--stub", action="store_true", help="print the migration's typed skeleton instead"
    )
    from statewright_compiler.commands import check_store

    check_store.add_arguments(
        add(
            "check-store",
            "load every stored instance through a new module, read-only: exit 1 if any is stranded",
            "statewright_compiler.commands.check_store:command_check_store",
        )
    )
    tools = add("tools", "print each state's events as LLM tool definitions (JSON)", command_tools)
    tools.add_argument("spec")
    tools.add_argument("--state", help="only this state (default: every state)")
    tools.add_argument(
        "--format",
        choices=["openai", "anthropic", "mcp"],
        default="anthropic",
        help="the shape of each definition (default: anthropic: name, description, input_schema)",
    )
    docs = add("docs", "write one Markdown page per machine", command_docs)
    docs.add_argument("specs", nargs="+")
    docs.add_argument("-o", "--output", dest="docs_output", required=True, help="folder for pages")
    diagram = add(
        "diagram", "draw a machine as Mermaid, Graphviz DOT, SVG, PNG or PDF", command_diagram
    )
    diagram.add_argument("spec")
    diagram.add_argument(
        "--format",
        choices=DIAGRAM_FORMATS,
        help="default: the output file's extension (.mmd, .dot, .gv, .svg, .png, .pdf); mermaid "
        "on standard output",
    )
    diagram.add_argument("-o", "--output", help="file to write (default: standard output)")
    diagram.add_argument("--expand-wildcards", action="store_true", help="one arrow per state")
    scxml = "statewright_compiler.commands.scxml"  # by name: imported when the command runs
    import_scxml = add(
        "import-scxml",
        "translate an SCXML chart into a spec (TOML)",
        f"{scxml}:command_import_scxml",
    )
    import_scxml.add_argument("scxml", metavar="FILE.scxml")
    import_scxml.add_argument(
        "-o",
        "--output",
        help="spec file to write, and those of the charts it invokes (default: standard output)",
    )
    export_scxml = add("export-scxml", "write a spec as SCXML 1.0", f"{scxml}:command_export_scxml")
    export_scxml.add_argument("spec", metavar="SPEC.toml")
    export_scxml.add_argument(
        "-o", "--output", help="SCXML file to write (default: standard output)"
    )
    from statewright_compiler.commands.stored import add_stored_commands

    add_stored_commands(add)  # mcp, replay
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    arguments = parser.parse_args(argv)
    try:
        handler = arguments.handler
        if isinstance(handler, str):  # "module:function", imported now (see _parser)
            module, _, name = handler.partition(":")
            handler = getattr(importlib.import_module(module), name)
        return int(handler(arguments))
    except (UsageError, ConfigError) as error:
        print(f"statewright: error: {error}", file=sys.stderr)
        return ExitCode.USAGE
    except SpecError as error:  # raised by the loader for unreadable spec files
        print_diagnostics(error.diagnostics)
        return ExitCode.FAILURE
    except KeyboardInterrupt:
        return 130
