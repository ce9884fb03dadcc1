"""The second pass: from a spec's declarations to the checked :class:`~model.Machine`.

:mod:`validate` runs both passes over a loaded spec (the shape pass of :mod:`spec`, then this
one) and raises every error found at once. :mod:`semantics` resolves names, expands selectors
and builds the model, with the checks only a flat machine needs in :mod:`flat_semantics`, those
only a statechart needs in :mod:`chart_semantics` (over the state tree of :mod:`chart_tree`),
the names that must stay distinct in Python in :mod:`collisions` and each handler method's one
role in :mod:`handlers`. Nothing here is imported on package import.
"""
