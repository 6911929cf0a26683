"""Property-based tests (hypothesis).

The parser: whatever text a pack holds, parsing returns a formula or raises
FormulaSyntaxError — never another exception, never a side effect — and a parsed formula
evaluates to a number or NaN for any inputs.

The shipped packs: more context never needs less memory, more memory bandwidth never
decodes slower, more bits per weight never weigh less — for every model pack.
"""

from __future__ import annotations

import ast
import builtins
import contextlib
import itertools
import textwrap

import numpy as np
import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import fitproof
from fitproof.formula.compiled import compile_tree
from fitproof.errors import PackError
from fitproof.formula.parser import FormulaSyntaxError, parse_formula
from fitproof.files.yaml_reader import read_yaml

from .conftest import REPO

# --- the parser ---------------------------------------------------------------------------

# Pieces of Python an attacker would reach for, and pieces of the formula language, so that
# random sequences are often almost-valid Python rather than noise.
TOKENS = [
    "__import__", "'os'", ".system", "('touch pwned')", "__class__", "__bases__",
    "__subclasses__", "()", "open", "eval", "exec", "compile", "globals", "getattr", "lambda",
    "x:", "for", "in", "[", "]", "{", "}", ":=", "f'{", "}'", "import", "os", ";", "\\n",
    "yield", "await", "not", "and", "or", "if", "else", "is", "None", "**", "*", "/", "//",
    "%", "+", "-", "<", "<=", "==", "(", ")", ",", ".", "model", "model.hidden_size",
    "hardware.memory_gb", "context", "batch", "min", "max", "round", "coalesce", "log",
    "sqrt", "9", "9e9", "0", "1.5", "2**10", "1e400", "а", "ℌ", "\u200b", "#", "'", '"',
]
source_text = st.one_of(
    st.text(max_size=80),
    st.lists(st.sampled_from(TOKENS), max_size=14).map(" ".join),
    st.lists(st.sampled_from(TOKENS), max_size=14).map("".join),
)


@contextlib.contextmanager
def code_may_not_run():
    """While active, eval/exec/open/__import__ raise, and compile may only build a syntax
    tree (what ast.parse does); anything else would mean pack text is being run."""
    real_compile = builtins.compile

    def refuse(*args, **kwargs):
        raise AssertionError("the parser tried to run code")

    def parse_only(source, filename, mode, flags=0, *args, **kwargs):
        if not flags & ast.PyCF_ONLY_AST:
            raise AssertionError("the parser tried to compile code")
        return real_compile(source, filename, mode, flags, *args, **kwargs)

    replaced = {"eval": refuse, "exec": refuse, "open": refuse, "__import__": refuse,
                "breakpoint": refuse, "compile": parse_only}
    saved = {name: getattr(builtins, name) for name in replaced}
    for name, function in replaced.items():
        setattr(builtins, name, function)
    try:
        yield
    finally:
        for name, function in saved.items():
            setattr(builtins, name, function)


@settings(max_examples=600, deadline=None)
@given(text=source_text)
def test_the_parser_returns_a_formula_or_a_clear_error_and_runs_nothing(text):
    error = formula = result = None
    with code_may_not_run():
        try:
            formula = parse_formula(text)
        except FormulaSyntaxError as caught:
            error = str(caught)
        else:
            env = {name: np.array([1.0, 0.0, np.nan, -2.5]) for name in formula.refs}
            with np.errstate(all="ignore"):
                result = np.asarray(compile_tree(formula.tree)(env), dtype=float)
    if formula is None:
        assert error and "\n" not in error
    else:
        assert formula.text and result.dtype == float


YAML_TOKENS = ["a: ", "b", "\n", "  ", "- ", "&x ", "*x", "<<: ", "!!python/object:os.system",
               "!custom ", "[", "]", "{", "}", ", ", "'", '"', "1e999", "9" * 45, ".inf",
               "---\n", "? ", ": ", "#", "\t", "\xff"]


@settings(max_examples=300, deadline=None)
@given(raw=st.one_of(st.binary(max_size=200),
                     st.lists(st.sampled_from(YAML_TOKENS), max_size=20).map("".join)
                     .map(str.encode)))
def test_the_yaml_reader_returns_a_document_or_a_clear_error(raw):
    try:
        read_yaml(raw, "pack.yaml")
    except PackError as error:
        assert error.problems
        assert all(str(p).startswith("pack.yaml") for p in error.problems)


# --- monotonic invariants across the shipped packs ----------------------------------------

@pytest.fixture(scope="module")
def shipped():
    return fitproof.load_registry(plugins=False)


def _table(registry, **choices_and_inputs):
    """One scenario per combination; values per quantity."""
    scenarios = []
    keys = list(choices_and_inputs)
    for combo in itertools.product(*(choices_and_inputs[k] for k in keys)):
        picked = dict(zip(keys, combo))
        inputs = {k: v for k, v in picked.items() if k in ("context", "batch", "gpus")}
        scenarios.append(fitproof.resolve_scenario(
            registry, model=picked.get("model"), hardware=picked.get("hardware"),
            quant=picked.get("quant"), kv=picked.get("kv"), inputs=inputs,
            engine=engine_for(registry, picked["kv"]) if "kv" in picked else None))
    return scenarios, fitproof.estimate_many(scenarios, registry=registry)


def engine_for(registry, kv: str) -> str:
    """The first engine (in id order) that can store the KV cache as ``kv``."""
    return next(e for e in sorted(registry.engines) if kv in registry.engines[e].kv_types)


def _non_decreasing(values):
    known = [v for v in values if v is not None]
    return all(a <= b + 1e-9 for a, b in zip(known, known[1:]))


CONTEXTS = [512, 2048, 4096, 8192, 16384, 32768, 65536, 131072, 262144, 1048576]


def test_more_context_never_needs_less_memory_for_any_model(shipped):
    for kv in shipped.kv_types:
        scenarios, table = _table(shipped, model=sorted(shipped.models), kv=[kv],
                                  context=CONTEXTS, hardware=["h200"])
        for name in ("kv_cache_gib", "total_gib"):
            values = table.values(name)
            for start in range(0, len(values), len(CONTEXTS)):
                row = values[start:start + len(CONTEXTS)]
                assert _non_decreasing(row), (scenarios[start].model, kv, name, row)
                assert None not in row, (scenarios[start].model, kv, name)


def usable_formats(registry, model: str) -> list[str]:
    """The formats ``model`` can be stored in (experts-only formats need routed experts)."""
    has_experts = bool(getattr(registry.models[model].num_experts, "value", None))
    return sorted(f for f, (spec, _) in registry.quant_formats.items()
                  if has_experts or not spec.requires_experts)


@settings(max_examples=80, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_more_context_never_needs_less_memory_random_scenarios(shipped, data):
    model = data.draw(st.sampled_from(sorted(shipped.models)))
    hardware = data.draw(st.sampled_from(sorted(shipped.hardware)))
    quant = data.draw(st.sampled_from(usable_formats(shipped, model)))
    kv = data.draw(st.sampled_from(sorted(shipped.kv_types)))
    batch = data.draw(st.integers(1, 64))
    low = data.draw(st.integers(1, 2_000_000))
    high = data.draw(st.integers(low, 4_000_000))
    scenarios = [fitproof.resolve_scenario(shipped, model=model, hardware=hardware,
                                           quant=quant, kv=kv, engine=engine_for(shipped, kv),
                                           inputs={"context": c, "batch": batch})
                 for c in (low, high)]
    table = fitproof.estimate_many(scenarios, registry=shipped)
    for name in ("kv_cache_gib", "total_gib", "required_gib"):
        assert _non_decreasing(table.values(name)), (name, table.values(name))


BANDWIDTH_SCALES = (1.0, 1.001, 1.5, 4.0)


@pytest.fixture(scope="module")
def faster_hardware(tmp_path_factory):
    """Every shipped hardware pack again, with its memory bandwidth scaled up."""
    folder = tmp_path_factory.mktemp("faster-hardware")
    for path in sorted((REPO / "packs" / "hardware").glob("*.yaml")):
        data = read_yaml(path.read_bytes(), str(path)).data
        bandwidth = data["memory_bandwidth_gbs"]
        base = bandwidth["value"] if isinstance(bandwidth, dict) else bandwidth
        for scale in BANDWIDTH_SCALES[1:]:
            copy = {k: v for k, v in data.items() if k != "aliases"}
            copy["id"] = f"{data['id']}-x{scale:g}".replace(".", "p")
            copy["memory_bandwidth_gbs"] = base * scale
            (folder / f"{copy['id']}.yaml").write_text(yaml.safe_dump(copy), encoding="utf-8")
    return fitproof.load_registry([folder], plugins=False)


def _variants(hardware_id: str) -> list[str]:
    return [hardware_id] + [f"{hardware_id}-x{s:g}".replace(".", "p")
                            for s in BANDWIDTH_SCALES[1:]]


def test_more_bandwidth_never_decodes_slower_on_any_hardware(faster_hardware):
    registry = faster_hardware
    shipped_ids = sorted(h for h in registry.hardware if "-x" not in h)
    for model in ("qwen3.5-35b-a3b", "llama-3.1-8b-instruct", "deepseek-v3"):
        for context in (8192, 131072):
            hardware = [v for h in shipped_ids for v in _variants(h)]
            scenarios, table = _table(registry, model=[model], hardware=hardware,
                                      context=[context])
            decode = table.values("decode_tps")
            width = len(BANDWIDTH_SCALES)
            for start in range(0, len(decode), width):
                row = decode[start:start + width]
                assert _non_decreasing(row), (model, scenarios[start].hardware, context, row)


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_more_bandwidth_never_decodes_slower_random_scenarios(faster_hardware, data):
    registry = faster_hardware
    model = data.draw(st.sampled_from(sorted(registry.models)))
    hardware = data.draw(st.sampled_from(sorted(h for h in registry.hardware if "-x" not in h)))
    quant = data.draw(st.sampled_from(usable_formats(registry, model)))
    inputs = {"context": data.draw(st.integers(1, 500_000)),
              "batch": data.draw(st.integers(1, 32)),
              "gpus": data.draw(st.sampled_from([1, 2, 4, 8])),
              "offload": data.draw(st.sampled_from([0, 25, 50]))}
    scenarios = [fitproof.resolve_scenario(registry, model=model, hardware=h, quant=quant,
                                           inputs=inputs) for h in _variants(hardware)]
    decode = fitproof.estimate_many(scenarios, registry=registry).values("decode_tps")
    assert _non_decreasing(decode), (model, hardware, quant, inputs, decode)


@pytest.fixture(scope="module")
def bit_ladder(tmp_path_factory):
    """A quantization pack of formats at ever more bits per weight (body and embeddings)."""
    folder = tmp_path_factory.mktemp("bit-ladder")
    steps = [2, 2.5, 3.0625, 4, 4.5, 4.85, 5.5, 6.5625, 8, 8.5, 16, 32]
    formats = "\n".join(f"  B{index:02d}:\n    bits: {min(32, max(1, round(b)))}\n"
                        f"    bpw_body: {b}\n    bpw_embed: {b}"
                        for index, b in enumerate(steps))
    (folder / "bit-ladder.yaml").write_text(textwrap.dedent(f"""\
        kind: quantization
        id: bit-ladder
        source: test fixture
        formats:
        """) + formats + "\n", encoding="utf-8")
    return fitproof.load_registry([folder], plugins=False), [f"B{i:02d}" for i in range(len(steps))]


def test_more_bits_per_weight_never_weigh_less_for_any_model(bit_ladder):
    registry, ladder = bit_ladder
    models = sorted(registry.models)
    scenarios, table = _table(registry, model=models, quant=ladder, hardware=["h200"])
    weights = table.values("weights_gib")
    for start in range(0, len(weights), len(ladder)):
        row = weights[start:start + len(ladder)]
        assert None not in row and _non_decreasing(row), (scenarios[start].model, row)
        assert row[-1] > row[0]


def test_shipped_formats_ordered_by_bits_never_weigh_less(registry):
    """The shipped weight formats, ordered by their fitted bits per weight (seed profile),
    for every model whose weights are derived from its configuration. (Counted per
    tensor class, the order can change for a model whose feed-forward width is not a whole
    number of K-quant super-blocks: llama.cpp then stores those rows at a wider type.)"""
    shipped = registry
    def bits(name):
        spec = shipped.quant_formats[name][0]
        return tuple(getattr(b, "value", b) for b in (spec.bpw_body, spec.bpw_embed))

    # the seed profile knows the formats whose fitted bits it states (bpw_body)
    formats = sorted((f for f, (spec, _) in shipped.quant_formats.items()
                      if spec.bpw_body is not None), key=bits)
    derived = [f for f in formats if shipped.quant_formats[f][0].size_basis != "checkpoint"]
    scenarios, table = _table(shipped, model=sorted(shipped.models), quant=derived,
                              hardware=["h200"])
    weights = table.values("weights_gib")
    for start in range(0, len(weights), len(derived)):
        row = weights[start:start + len(derived)]
        assert _non_decreasing(row), (scenarios[start].model, list(zip(derived, row)))
