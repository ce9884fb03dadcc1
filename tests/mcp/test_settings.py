"""``statewright mcp``'s configuration: ``[tool.statewright.mcp]`` and the options over it, the
imports it allows, and the one-line errors (exit code 2, no traceback) for everything wrong."""

from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path

import pytest
from statewright_compiler.config import ConfigError, find_config
from statewright_compiler.mcp_server.hosting import hosted_types
from statewright_compiler.mcp_server.settings import Settings, add_arguments, settings_from

from tests.conftest import REPO, run_cli

MACHINE = "approval_workflow:ApprovalWorkflowMachine"
HANDLERS = "tests.mcp.hosts:handlers"


def _options(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    return parser.parse_args(list(argv))


def _project(tmp_path: Path, table: str) -> Path:
    (tmp_path / "pyproject.toml").write_text(
        f'[tool.statewright]\nspecs = ["spec/*.toml"]\n\n[tool.statewright.mcp]\n{table}',
        encoding="utf-8",
    )
    return tmp_path


def test_the_table_configures_the_server_and_options_override_it(tmp_path: Path) -> None:
    project = _project(
        tmp_path,
        'store = "sqlite:state/machines.db"\nmachines = ["a.b:C"]\nhandlers = "h:make"\n'
        'instance_prefix = "agent-"\nread_only = true\nhistory = 5\npath = ["src"]\n',
    )
    settings = settings_from(_options(), project)
    assert settings == Settings(
        root=project,
        store=f"sqlite://{(project / 'state/machines.db').as_posix()}",
        machines=("a.b:C",),
        handlers="h:make",
        path=(project / "src",),
        instance_prefix="agent-",
        read_only=True,
        history=5,
    )
    overridden = settings_from(
        _options("--store", "sqlite:///abs.db", "--machine", "x:Y", "--transport", "http",
                 "--port", "9000", "--allow-create"),
        project,
    )  # fmt: skip
    assert (overridden.store, overridden.machines, overridden.transport, overridden.port) == (
        "sqlite:///abs.db", ("x:Y",), "http", 9000
    )  # fmt: skip
    assert overridden.allow_create and overridden.read_only  # the table's, not overridden
    # the compiler's own commands read the same pyproject.toml without complaint
    assert find_config(project).root == project


def test_the_data_factory_is_an_import_path_like_the_context_s(tmp_path: Path) -> None:
    project = _project(
        tmp_path, 'store = "memory://"\nmachines = ["a:B"]\ncontext = "h:ctx"\ndata = "h:data"\n'
    )
    assert settings_from(_options(), project).data == "h:data"
    assert settings_from(_options("--data", "other:make"), project).data == "other:make"
    bare = _project(tmp_path, 'store = "memory://"\nmachines = ["a:B"]\n')
    assert settings_from(_options(), bare).data is None


@pytest.mark.parametrize(
    ("table", "argv", "message"),
    [
        ('store = "memory://"\nmachines = ["a:B"]\nwrong = 1\n', (), "unknown keys: wrong"),
        ('machines = ["a:B"]\n', (), "no store"),
        ('store = "memory://"\n', (), "no machine to serve"),
        ('store = "memory://"\nmachines = "a:B"\n', (), "machines must be a list"),
        ('store = "memory://"\nmachines = ["a.B"]\n', (), "'module:Class' names"),
        ('store = "memory://"\nmachines = ["a:B"]\nread_only = "yes"\n', (), "true or false"),
        ('store = "memory://"\nmachines = ["a:B"]\n', ("--port", "0"), "a port number"),
        ('store = "memory://"\nmachines = ["a:B"]\n', ("--instance-prefix", "../"), "letters"),
        ('store = "memory://"\nmachines = ["a:B"]\nhistory = -1\n', (), "whole number"),
        ('store = "memory://"\nmachines = ["a:B"]\ndata = "h.data"\n', (), "data must be a"),
    ],
)
def test_a_wrong_table_or_option_is_a_configuration_error(
    tmp_path: Path, table: str, argv: tuple[str, ...], message: str
) -> None:
    with pytest.raises(ConfigError, match=message):
        settings_from(_options(*argv), _project(tmp_path, table))


@pytest.mark.parametrize(
    ("machines", "handlers", "message"),
    [
        (("no_such_module:Machine",), HANDLERS, "cannot import no_such_module"),
        (("approval_workflow:Nothing",), HANDLERS, "approval_workflow has no Nothing"),
        (("approval_workflow:ApprovalWorkflowState",), HANDLERS, "not a generated machine"),
        (("approval_workflow:ApprovalWorkflowAsyncMachine",), HANDLERS, "asyncio machine"),
        ((MACHINE,), None, "needs handlers"),
        ((MACHINE,), "tests.mcp.hosts:patient_context", "without apply_changes"),
        ((MACHINE,), "tests.mcp.hosts:raising_context", "raised RuntimeError: no context"),
        ((MACHINE,), "tests.mcp.hosts:MACHINE_NOT_THERE", "has no MACHINE_NOT_THERE"),
        ((MACHINE, MACHINE), HANDLERS, "served already"),
    ],
)
def test_only_generated_sync_machines_and_complete_handlers_are_hosted(
    monkeypatch: pytest.MonkeyPatch, machines: tuple[str, ...], handlers: str | None, message: str
) -> None:
    monkeypatch.setattr(sys, "path", list(sys.path))
    settings = Settings(REPO, "memory://", machines, handlers, path=(REPO, REPO / "examples"))
    with pytest.raises(ConfigError, match=message):
        hosted_types(settings)


def test_a_data_factory_is_imported_and_checked_at_start_up(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(sys, "path", list(sys.path))
    paths = (REPO, REPO / "examples")
    for data, message in [
        ("tests.mcp.hosts:NOT_THERE", "data factory tests.mcp.hosts:NOT_THERE: .* has no"),
        ("tests.mcp.hosts:__doc__", "data factory tests.mcp.hosts:__doc__: not callable"),
    ]:
        settings = Settings(REPO, "memory://", (MACHINE,), HANDLERS, data=data, path=paths)
        with pytest.raises(ConfigError, match=message):
            hosted_types(settings)
    settings = Settings(
        REPO, "memory://", (MACHINE,), HANDLERS, data=f"{HANDLERS[:-9]}:patient_data"
    )
    (served,) = hosted_types(Settings(**{**vars(settings), "path": paths}))
    assert served.new_data() == {"max_retries": 1_000_000}


def test_the_command_reports_a_bad_configuration_in_one_line(tmp_path: Path) -> None:
    project = _project(tmp_path, 'store = "memory://"\nmachines = ["nowhere:Machine"]\n')
    run = run_cli(["mcp"], cwd=project)
    assert run.code == 2
    assert run.stderr.startswith("statewright: error: machine nowhere:Machine: cannot import")
    assert "Traceback" not in run.stderr and run.stdout == ""
    run = run_cli(["mcp", "--store", "nosuch://x", "--machine", MACHINE, "--handlers", HANDLERS,
                   "--path", str(REPO / "examples")], cwd=REPO)  # fmt: skip
    assert (run.code, run.stderr.count("\n")) == (2, 1)
    assert "store nosuch://x: " in run.stderr and "no store for the scheme" in run.stderr


def test_without_the_sdk_the_command_names_the_extra(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    find_spec = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *rest: None if name == "mcp" else find_spec(name)
    )
    run = run_cli(["mcp", "--store", "memory://", "--machine", MACHINE], cwd=tmp_path)
    assert run.code == 2
    assert "pip install 'statewright[mcp]'" in run.stderr and "Traceback" not in run.stderr
