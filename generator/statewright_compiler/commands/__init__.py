"""What the commands beyond the pipeline do: :mod:`init` (``statewright init``: plan a project's
set-up, then write it without touching the user's files) and :mod:`tools` (``statewright
tools``: each state's events as tool definitions for an LLM, from the runtime's own code).
:mod:`~statewright_compiler.cli` parses the arguments and imports each module only when its
command runs; nothing here is imported on package import.
"""
