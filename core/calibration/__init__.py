"""Fitting the measured profile's speed constants to measurement rows, and scoring them.

One module per job: ``rows`` (the measurement rows as arrays of what fitproof computes),
``layout`` (which constants a fit has), ``model`` (the speed formulas the fit inverts),
``fit`` (robust least squares, scipy), ``crossval`` (held-out errors and bands), ``blocks``
(the YAML of an engine's fitted block), ``engine_packs`` (writing that block into the
shipped engine packs), ``refit`` (what ``benchmarks/fit_speed.py`` prints and writes),
``profile_pack`` and ``calibrate`` (``fitproof calibrate``: a refit on the shipped rows and
the user's, written as a profile pack). The serving engines' constants have theirs:
``serving_rows``, ``serving_model``, ``serving_fit``, ``serving_blocks``, ``serving_refit``
(what ``benchmarks/fit_serving.py`` prints and writes) and ``serving_calibrate`` (their refit
in ``fitproof calibrate``). Importing this package imports none of them; numpy loads with
``rows``, scipy only when a fit runs.
"""
