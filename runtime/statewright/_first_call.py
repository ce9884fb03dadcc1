"""A module-level function imported by its first call, then called directly.

The runtime keeps what importing a generated module costs small (``bench/bench_import.py``), so
what only saves, loads or trees of machines run is imported when first needed; and the hot ones
(a timer driver loads and saves once per timer it fires) are not imported inside the function at
every call, which on Python 3.10 and 3.11 costs one to two microseconds (``from m import f``
looks for ``m.__path__``, whose absence formats an error message first). :func:`on_first_call`
makes a stand-in for such a global: its first call imports the function, puts it in the global's
place, and calls it; every later call finds the function itself.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["on_first_call"]


def on_first_call(
    namespace: dict[str, Any], name: str, module: str, attribute: str
) -> Callable[..., Any]:
    """A stand-in for the global ``name`` of ``namespace`` (a module's ``globals()``): called,
    it imports ``module``'s ``attribute``, binds it to ``name`` and calls it. (Two threads that
    call it at once both import it: the same function, bound twice.)"""

    def first_call(*args: Any, **kwargs: Any) -> Any:
        function = getattr(__import__(module, fromlist=[attribute]), attribute)
        namespace[name] = function
        return function(*args, **kwargs)

    first_call.__qualname__ = first_call.__name__ = name
    return first_call
