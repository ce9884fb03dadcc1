"""The spec's expression language: a safe, typed subset of Python.

Guards (``cond``), assignments, send data, delays, log text and every other expression slot of a
spec hold a string in this language. The compiler parses it with Python's own parser and keeps
only an allowlisted subset (:mod:`.syntax`: literals, names, operators, comparisons, subscripts,
a few pure functions), checks its types against the spec's data fields and payloads
(:mod:`.types`, :mod:`.checker`: a type error is a diagnostic at the spec's line and column), and
prints it as Python for the generated module (:mod:`.emit`), which mypy then checks again. No
expression text is ever evaluated: only the compiled translation runs. docs/spec-language.md
describes the language.
"""
