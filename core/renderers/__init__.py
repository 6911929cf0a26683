"""Renderers: turn evaluated quantities and derivations into text, JSON, Markdown, LaTeX.

Renderers read; they never compute a number.
"""
