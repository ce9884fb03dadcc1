"""The Markdown page of a compiled machine (``statewright docs``).

:mod:`page` computes the page from the model and renders ``templates/machine.md.jinja``;
:mod:`cells` and :mod:`chart_docs` make its table cells, and :mod:`markdown` decides how each
string from a spec enters the page. Nothing here is imported on package import.
"""
