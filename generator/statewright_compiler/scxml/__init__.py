"""SCXML in and out: ``statewright import-scxml`` and ``statewright export-scxml``.

Both directions go through one model of SCXML in its own terms, :mod:`document`. Import:
:mod:`read` parses the XML safely (positions kept, no DTD), :mod:`importer` (with
:mod:`content` for executable content) reads the elements statewright can translate into a
document, and :mod:`spec_text` writes it as a spec, naming states and events with :mod:`names`,
declaring events with :mod:`events`, turning ``cond`` into guards with :mod:`conditions`, and
writing every text through :mod:`toml_text`. Export: :mod:`exporter` builds the document from
a compiled machine and :mod:`write` prints it as XML. Nothing here is imported on package
import.
"""
