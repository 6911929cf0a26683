"""The snapshot path: a single estimate without loading packs. ``build`` stores a linked
registry as plain data, ``snapshot`` keys, stores and checks it, ``estimate`` resolves and
evaluates one scenario from it in plain Python (``select``: its selections).

Imports none of numpy, sympy, jsonschema, yaml, cattrs or pluggy on the estimate path.
"""
