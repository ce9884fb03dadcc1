"""Statecharts: the compiled machines against a reference interpreter of SCXML's algorithm."""
