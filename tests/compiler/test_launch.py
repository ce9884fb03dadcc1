"""The ``statewright`` command on a runtime-only install (no jinja2): ``--version`` works, every
other command says what to install, in one line, never a traceback.

``tests/packaging/test_install.py`` runs the same from a real runtime-only wheel install; here
the missing dependency is simulated, so the fast suite covers it too.
"""

from __future__ import annotations

import pytest
from statewright_compiler import __version__, launch


@pytest.fixture
def runtime_only(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(launch, "missing_dependencies", lambda: ["jinja2"])


@pytest.mark.usefixtures("runtime_only")
def test_version_works_without_the_compiler(capsys: pytest.CaptureFixture[str]) -> None:
    assert launch.main(["--version"]) == 0
    out, err = capsys.readouterr()
    assert out.startswith(f"statewright {__version__} (runtime only;")
    assert "pip install 'statewright[compiler]'" in out and not err


@pytest.mark.usefixtures("runtime_only")
@pytest.mark.parametrize("arguments", [["generate"], ["diagram", "x.toml"], [], ["--help"]])
def test_other_commands_say_what_to_install(
    capsys: pytest.CaptureFixture[str], arguments: list[str]
) -> None:
    assert launch.main(arguments) == 2
    out, err = capsys.readouterr()
    assert not out and len(err.splitlines()) == 1
    assert "needs the compiler" in err and "pip install 'statewright[compiler]'" in err
    if arguments and not arguments[0].startswith("-"):
        assert f"`statewright {arguments[0]}`" in err


@pytest.mark.usefixtures("runtime_only")
def test_the_mcp_command_names_its_own_extra(capsys: pytest.CaptureFixture[str]) -> None:
    assert launch.main(["mcp", "--store", "memory://"]) == 2
    err = capsys.readouterr().err
    assert "`statewright mcp` needs the compiler" in err
    assert "pip install 'statewright[mcp]'" in err and len(err.splitlines()) == 1


def test_with_the_compiler_the_version_is_the_same(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        launch.main(["--version"])
    assert exit_.value.code == 0
    assert capsys.readouterr().out == f"statewright {__version__}\n"
