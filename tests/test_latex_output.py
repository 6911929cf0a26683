"""``explain --format latex`` is LaTeX a real engine compiles (pdflatex, from the
texlive-latex-base package), formulas and substituted values alike in math mode."""

from __future__ import annotations

import subprocess

import pytest

from fitproof.cli import main

from .conftest import require_tool

pytestmark = pytest.mark.latex

INSTALL = "apt-get install texlive-latex-base"
DOCUMENT = ("\\documentclass{article}\n\\usepackage{amsmath}\n\\begin{document}\n%s"
            "\\end{document}\n")


def latex(capsys, *argv: str) -> str:
    code = main(["--no-plugins", "explain", *argv, "--format", "latex"])
    out, err = capsys.readouterr()
    assert code == 0, err
    return out


def compile_pdf(tmp_path, body: str) -> subprocess.CompletedProcess:
    pdflatex = require_tool("pdflatex", install=INSTALL)
    (tmp_path / "doc.tex").write_text(DOCUMENT % body, encoding="utf-8")
    return subprocess.run([pdflatex, "-interaction=nonstopmode", "-halt-on-error", "doc.tex"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("argv", [
    ["decode_tps"],  # a max, a coalesce, a conditional, powers and a modulo (%) inside
    ["total_gib", "deepseek-r1", "--on", "h100", "--gpus", "8"],
    ["kv_cache_gib", "qwen3-next-80b-a3b-instruct", "--context", "128K"],
    ["cost_per_mtok_usd", "llama-3.1-70b"],  # a number picked by a selection
    ["decode_tps", "llama-3.1-8b", "--on", "rtx-4090", "--sensitivity"],
])
def test_latex_compiles(tmp_path, capsys, argv):
    body = latex(capsys, *argv)
    done = compile_pdf(tmp_path, body)
    errors = [line for line in done.stdout.splitlines() if line.startswith("!")]
    assert done.returncode == 0 and not errors, errors or done.stdout[-2000:]
    assert (tmp_path / "doc.pdf").stat().st_size > 1000


def test_substituted_values_are_math_not_typewriter_text(capsys):
    body = latex(capsys, "decode_tps")
    assert "\\texttt" not in body
    lines = body.splitlines()
    assert lines[1].startswith("  \\mathrm{decode\\_tps} &= \\frac{\\mathrm{running\\_sequences}}"
                               "{\\mathrm{decode\\_step\\_s}}")
    assert lines[2].startswith("  &= \\frac{1}{0.") and lines[2].endswith("\\ \\mathrm{tok/s} \\\\")
    assert " \\cdot 10^{" in body  # 1e9 written as a power of ten
