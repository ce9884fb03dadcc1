"""``statewright mcp``: a Model Context Protocol server through which any agent client drives
stored machines by their legal events, over the same validated boundary as ``send_external``.

Why here, in the compiler's package, and not in the runtime or a package of its own: the runtime
stays standard-library only and never imports the SDK (this package is the only code that
does); the server is a command of the ``statewright`` program, read from the same
``[tool.statewright]`` table; and two of its resources, each machine's diagram and docs page,
are compiler output, made from the spec by the same code as ``statewright diagram`` and
``statewright docs``. It needs the ``mcp`` extra (``pip install 'statewright[mcp]'``, which
brings the compiler too); nothing imports this package unless ``statewright mcp`` runs.

One concept per module, read top to bottom: :mod:`.settings` (the table and the options) ->
:mod:`.hosting` (import the configured classes and factories) -> :mod:`.instances` (list, read,
create and send over the store, no MCP) with :mod:`.views` (what a read shows) ->
:mod:`.tools` and :mod:`.resources` (what a client sees) -> :mod:`.server` (the SDK's server) ->
:mod:`.command` (the command). The design, and why one ``send_event`` tool rather than a tool
list per state, is in docs/runtime.md ("statewright mcp").
"""
