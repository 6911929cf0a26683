"""The wheel ships every subpackage of core/ and declares what the code imports."""

from __future__ import annotations

import pytest

from .conftest import REPO

pytestmark = pytest.mark.slow

tomllib = pytest.importorskip("tomllib")  # Python 3.11+


def project() -> dict:
    return tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))


def test_every_core_subpackage_is_in_the_wheel():
    packages = set(project()["tool"]["setuptools"]["packages"])
    found = {"fitproof." + ".".join(p.parent.relative_to(REPO / "core").parts)
             for p in (REPO / "core").rglob("__init__.py")}
    found = {name.rstrip(".") for name in found}
    assert found <= packages, sorted(found - packages)


def test_third_party_imports_are_declared_dependencies():
    import ast
    import sys

    def names(requirements):
        return {d.split(">")[0].split("=")[0].split("[")[0].strip().lower() for d in requirements}

    declared = names(project()["project"]["dependencies"])
    # an optional feature's import (pyarrow: sweep --format parquet; gguf: import gguf;
    # scipy: calibrate) is in its extra, and the tests install it
    optional = project()["project"]["optional-dependencies"]
    for extra in ("parquet", "gguf", "fit"):
        declared |= names(optional[extra])
        assert names(optional[extra]) <= names(optional["test"])
    imported: set[str] = set()
    for path in (REPO / "core").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                imported |= {a.name.split(".")[0] for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                imported.add(node.module.split(".")[0])
    third_party = {m for m in imported if m not in sys.stdlib_module_names and m != "fitproof"}
    distribution = {"yaml": "pyyaml"}
    assert {distribution.get(m, m) for m in third_party} <= declared, third_party


def test_the_pack_cache_keeps_several_pack_sets(tmp_path, monkeypatch):
    """Alternating between two --pack-dir sets does not evict either from the cache: the
    third load of the first set validates nothing again."""
    import fitproof
    import fitproof.files.validation

    monkeypatch.setenv("FITPROOF_CACHE_DIR", str(tmp_path / "cache"))
    template = (REPO / "examples" / "hardware-template.yaml").read_text(encoding="utf-8")
    for name in ("one", "two"):
        folder = tmp_path / name
        folder.mkdir()
        text = template.replace("id: acme-x1-48gb", f"id: acme-{name}")
        (folder / f"acme-{name}.yaml").write_text(text, encoding="utf-8")
    fitproof.load_registry([tmp_path / "one"], plugins=False)
    fitproof.load_registry([tmp_path / "two"], plugins=False)

    def no_validation(document):
        raise AssertionError(f"{document.path} validated again")

    monkeypatch.setattr(fitproof.files.validation, "validate_document", no_validation)
    registry = fitproof.load_registry([tmp_path / "one"], plugins=False)
    assert "acme-one" in registry.hardware


def test_the_package_says_it_is_typed():
    """PEP 561: the installed package carries py.typed, so a downstream tool's type checker
    reads fitproof's annotations (CI installs the package, not the source tree)."""
    from importlib.resources import files

    assert files("fitproof").joinpath("py.typed").is_file()


def test_collecting_the_tests_leaves_the_users_cache_alone(tmp_path):
    """Test modules load packs while pytest collects them; the suite's private cache is in
    place by then, so a user's own cache folder is never written."""
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items()
           if k not in ("FITPROOF_CACHE_DIR", "XDG_CACHE_HOME")}
    env["HOME"] = str(tmp_path)
    result = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q",
                             "-p", "no:cacheprovider", "tests/test_model_library.py"],
                            cwd=REPO, env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    assert not (tmp_path / ".cache").exists()


def test_the_sdist_and_the_wheel_carry_the_license_and_the_type_marker(tmp_path):
    """Built as a release would be (PEP 517, setuptools), in a copy of the checkout: both
    archives hold LICENSE (the Apache-2.0 text pyproject.toml declares) and py.typed, and
    the wheel's metadata names the license."""
    import shutil
    import subprocess
    import sys
    import tarfile
    import zipfile

    source = tmp_path / "source"
    shutil.copytree(REPO, source, ignore=shutil.ignore_patterns(
        ".git", "build", "*.egg-info", "__pycache__", ".mypy_cache", ".pytest_cache",
        ".hypothesis", "dist"))
    (tmp_path / "dist").mkdir()
    # build_meta rewrites sys.argv as it goes: the folder is read first
    code = ("import sys; from setuptools import build_meta as b; out = sys.argv[1]; "
            "s = b.build_sdist(out); w = b.build_wheel(out); print('BUILT', s, w)")
    built = subprocess.run([sys.executable, "-c", code, str(tmp_path / "dist")], cwd=source,
                           capture_output=True, text=True, timeout=300)
    assert built.returncode == 0, built.stderr[-2000:]
    sdist_name, wheel_name = built.stdout.rsplit("BUILT ", 1)[1].split()
    license_text = (REPO / "LICENSE").read_text(encoding="utf-8")
    assert "Apache License" in license_text and "Version 2.0, January 2004" in license_text
    with tarfile.open(tmp_path / "dist" / sdist_name) as sdist:
        names = sdist.getnames()
        assert any(n.endswith("/LICENSE") for n in names)
        assert any(n.endswith("/core/py.typed") for n in names)
    with zipfile.ZipFile(tmp_path / "dist" / wheel_name) as wheel:
        names = wheel.namelist()
        assert "fitproof/py.typed" in names
        licenses = [n for n in names if n.endswith(".dist-info/licenses/LICENSE")]
        assert licenses and wheel.read(licenses[0]).decode() == license_text
        metadata = wheel.read(next(n for n in names if n.endswith(".dist-info/METADATA")))
        assert b"License-Expression: Apache-2.0" in metadata
