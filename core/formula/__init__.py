"""The formula language: the one table of functions (``functions``), the parser
(``parser``, formula text to a small tree; never ``eval`` or ``sympify``) and its
backends: numpy arrays (``compiled``), plain Python over one scenario (``scalar``), sympy
and LaTeX (``symbolic``) and JavaScript for the site (``javascript``); ``rounding`` is the
one rounding rule they share.

Nothing here knows packs: a formula is text in, a function of named values out.
"""
