"""Packs linked into one checked set: the names formulas read (``namespaces``), the formula
graph (``graph``), profiles, questions, replacements (``overrides``), the candidates
selections choose from, cross-pack checks, plugins and ``linking`` (``load_registry``),
which builds the index (``index.Registry``).

Above ``files`` (packs read and validated) and ``formula``; below the engine that
evaluates scenarios over it.
"""
