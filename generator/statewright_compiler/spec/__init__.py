"""The spec language and the first pass over a spec: from a TOML file to its declarations.

:mod:`load` reads the file (keeping every key's position, :mod:`positions`, within
:mod:`limits`); the shape pass (:mod:`read_spec`, with :mod:`read_events`, :mod:`read_rules`,
:mod:`read_steps` and :mod:`fields`) checks each table's keys, types and names against
:mod:`schema` and collects :mod:`declarations`, reporting through a :mod:`reporter`. Beside them,
the language's small grammars and rules, each in one place: :mod:`guards`, :mod:`payload_types`,
:mod:`durations`, :mod:`descriptors`, :mod:`naming` (spec names as Python names) and
:mod:`literals` (spec text as Python literals). Nothing here is imported on package import.
"""
