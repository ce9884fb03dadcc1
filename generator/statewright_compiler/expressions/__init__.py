"""The spec's expression language: a safe, typed subset of Python.

Guards (``cond``), assignments, send data, delays, log text and every other expression slot of a
spec hold a string in this language. The compiler parses it with Python's own parser and keeps
only an allowlisted subset (:mod:`.syntax`: literals, names, operators, comparisons, subscripts,
a few pure functions; :mod:`.nodes` is its tree), then checks its types against the spec's data
fields and payloads and prints it as Python for the generated module in one pass
(:mod:`.translate`, with :mod:`.types`, :mod:`.rules`, :mod:`.scope`, :mod:`.locations`, and
:mod:`.tidy` for the printed forms ruff's rules expect); mypy then checks the module again. A type
error is a diagnostic at the spec's line and column. No expression text is ever evaluated: only
the compiled translation runs. docs/spec-language.md describes the language.
"""
