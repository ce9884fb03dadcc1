"""The Markdown page of a compiled machine (``statewright docs``).

:mod:`page` computes every section of the page from the model in one pass (a flat machine's and
a statechart's versions side by side) and renders ``templates/machine.md.jinja`` with it;
:mod:`cells` turns each fact of the model into a table cell or a note; :mod:`markdown` is the
one place that decides how a string from a spec enters the page. Nothing here is imported on
package import.
"""
