"""Evaluation: scenarios resolved against the registry (``scenario``), one vectorised pass
over many rows (``evaluator``, ``columns``), estimates with their derivations
(``estimation``, ``derivation``), machines of unlike devices (``machine``,
``machine_estimate``), inverse questions (``solve``), sensitivities, the model lists
(``queries``) and accuracy against measurements (``accuracy``).
"""
