"""What the commands beyond the pipeline do: :mod:`init` (``statewright init``: plan a project's
set-up, then write it without touching the user's files), :mod:`tools` (``statewright tools``:
each state's events as tool definitions for an LLM, from the runtime's own code), :mod:`diff`
(``statewright diff`` and the version check of ``check --against``), :mod:`scxml`
(``import-scxml``, ``export-scxml``); :mod:`common` holds what the handlers share (the usage
error, printing diagnostics, compiling one spec). :mod:`~statewright_compiler.cli` parses the
arguments and imports each command's module only when it runs; nothing here is imported on
package import.
"""
