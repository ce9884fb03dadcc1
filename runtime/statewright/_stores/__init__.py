"""The stores: one module per backend over what they share (see docs/runtime.md, "Stores").

Empty on purpose: generated modules import :mod:`statewright._stores.protocol` (the ``Store``
types) and so this package, but no backend; ``statewright`` imports those on first use.
"""
