"""From the model to the generated Python module's source text, laid out.

:mod:`render` builds the module view (every name and literal the module prints, computed once
from the :class:`~model.Machine`) and renders ``templates/module.py.jinja`` with it. The view is
composed of parts: :mod:`dispatch_view` (the ``match`` dispatch, typed ``send`` signatures,
event methods), :mod:`chart_view` (a statechart's ``CHART`` and configuration, with handler
typing from :mod:`chart_triggers`), :mod:`large_view` (the shape that keeps mypy fast above
``render.MATCH_LIMIT``) and :mod:`flavours` (the sync and async handlers protocol and machine
class); :mod:`imports` prints exactly the imports the module uses. :mod:`formatter` then lays
the text out, and :mod:`jinja_env` is the one Jinja environment every artifact (module, docs
page, diagrams, starter spec) renders with. Nothing here is imported on package import.
"""
