"""Adding a pack kind touches the kinds table, a schema, a spec class and its packs, and no
other Python file (docs/architecture.md, "A pack kind"): done here on a copy of the package."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap

import pytest

from fitproof.files.loader import CACHE_ENV

from .conftest import REPO

pytestmark = pytest.mark.slow

SCHEMA = """{"$schema": "https://json-schema.org/draft/2020-12/schema",
 "$id": "https://fitproof.dev/schemas/benchmark_suite.schema.json",
 "type": "object", "additionalProperties": false,
 "required": ["kind", "id", "name", "measurements"],
 "properties": {
   "kind": {"const": "benchmark_suite"}, "id": {"type": "string"},
   "name": {"type": "string"}, "override": {"type": "boolean"},
   "measurements": {"type": "array", "items": {"type": "string"}}}}
"""
SPEC = '''
from __future__ import annotations

import attrs

from .common import NO_PACK, PackFile


@attrs.frozen
class BenchmarkSuitePack:
    id: str
    name: str
    measurements: tuple[str, ...]
    kind: str = "benchmark_suite"
    override: bool = False
    pack: PackFile = NO_PACK
'''
ROW = ('    PackKind("benchmark_suite", "benchmark_suite", BenchmarkSuitePack, '
       '"benchmark-suites", ("measurements",)),\n)')
PACK = """kind: benchmark_suite
id: dense-cuda
name: Dense models on CUDA
measurements: [xiongjiedai-llama-bench, public-llama-bench]
"""


def test_a_new_kind_needs_the_table_a_schema_a_class_and_packs(tmp_path):
    package = tmp_path / "fitproof"
    shutil.copytree(REPO / "core", package, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(REPO / "packs", package / "packs", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(REPO / "schemas", package / "schemas",
                    ignore=shutil.ignore_patterns("__pycache__"))
    (package / "schemas" / "benchmark_suite.schema.json").write_text(SCHEMA)
    (package / "specs" / "benchmark_suite.py").write_text(SPEC)
    kinds = package / "specs" / "kinds.py"
    text = kinds.read_text()
    text = text.replace("from .catalog import", "from .benchmark_suite import BenchmarkSuitePack\n"
                                                "from .catalog import", 1)
    assert text.rstrip().count("\n)") >= 1
    head, _, tail = text.rpartition("\n)")
    kinds.write_text(head + "\n" + ROW + tail)
    (package / "packs" / "benchmark-suites").mkdir()
    (package / "packs" / "benchmark-suites" / "dense-cuda.yaml").write_text(PACK)
    suite = package / "packs" / "benchmark-suites" / "dense-cuda.yaml"
    script = f"SUITE = {str(suite)!r}\n" + textwrap.dedent("""
        import fitproof
        from fitproof import api
        registry = fitproof.load_registry(plugins=False, use_cache=False)
        print(registry.by_kind["benchmark_suite"]["dense-cuda"].measurements)
        print(api.render("packs", api.packs(registry, "benchmark_suite")).strip())
        report = api.validate_packs([SUITE], plugins=False)
        print(report.ok, [str(p) for f in report.files for p in f.problems])
    """)
    env = {**os.environ, "PYTHONPATH": str(tmp_path), CACHE_ENV: str(tmp_path / "c")}
    env.pop("FITPROOF_PACK_PATH", None)
    done = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "('xiongjiedai-llama-bench', 'public-llama-bench')"
    assert lines[1].startswith("benchmark_suite  dense-cuda  Dense models on CUDA")
    assert lines[-1] == "True []"
