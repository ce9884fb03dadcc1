"""Deploy safety: two specs of one machine compared as data (``statewright diff``, and the
version check of ``statewright check --against``), the migration between them sketched, and
what is stored checked against the new one (``statewright check-store``).

The pipeline: each side is loaded, validated and modelled as any spec is (:mod:`sources`);
:mod:`diff` compares the two :class:`~statewright_compiler.model.Machine` objects part by part
(:mod:`states`, :mod:`events`, :mod:`transitions`, :mod:`timers`, :mod:`data`) into
:class:`~changes.Change` records of a stable kind and class; :mod:`report` prints them, and
:mod:`stub` the typed skeleton of the migration (``diff --stub``). :mod:`store_check` loads
each stored instance through the new machine class.
"""
