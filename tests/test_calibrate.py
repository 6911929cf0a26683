"""``fitproof calibrate``: the speed constants refitted on the shipped rows plus the user's
(``bench ingest``), written as a profile pack in the user's pack folder, which linking uses
in place of the engine packs' fitted figures when that profile is chosen, and only then."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

import fitproof
from fitproof.cli import main

pytestmark = pytest.mark.slow

BENCH = Path(__file__).resolve().parent / "data" / "bench"
SCENARIO = dict(model="qwen2.5-7b-instruct", hardware="rtx-4080", quant="Q4_K_M")


@pytest.fixture(scope="module")
def calibrated(tmp_path_factory):
    """A user pack folder with the rows of llama-bench-4080.json and the profile one
    calibrate run (one device split: the machine is small) wrote from them; the command's
    exit code, output and errors."""
    folder = tmp_path_factory.mktemp("user") / "packs"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("FITPROOF_USER_PACKS", str(folder))
        patch.setenv("FITPROOF_CACHE_DIR", "off")
        assert main(["--no-plugins", "bench", "ingest", str(BENCH / "llama-bench-4080.json")]) == 0
        import contextlib
        import io

        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(["--no-plugins", "calibrate", "--repeats", "1"])
        yield folder, code, out.getvalue(), err.getvalue(), fitproof.load_registry(plugins=False)


def test_calibrate_writes_a_profile_that_validates(calibrated, capsys):
    folder, code, out, err, registry = calibrated
    assert code == 0, err
    path = folder / "profiles" / "mine.yaml"
    assert out.startswith(f"Calibrated profile 'mine' (extends measured): wrote {path}\n")
    assert "Refitted llama.cpp on " in out and "(1 yours)" in out
    profile = registry.profiles["mine"]
    assert profile.extends == "measured" and set(profile.engines) == {"llama.cpp"}
    calibration = profile.calibration
    assert calibration.user_measurements == ("bench-llama-bench-4080",)
    assert dict(calibration.user_rows) == {"decode_tps": 1, "prefill_tps": 1}
    assert calibration.repeats == 1 and "bench-llama-bench-4080" in calibration.measurements
    # the held-out error of both sets of constants on the same rows, as printed
    scored = {(s.metric, s.group, s.constants): s for s in calibration.held_out}
    for metric in ("decode_tps", "prefill_tps"):
        for group in ("all", "yours", "yours-in-fit"):
            shipped, refitted = scored[(metric, group, "shipped")], scored[(metric, group, "calibrated")]
            assert shipped.rows == refitted.rows
            assert (f"llama.cpp   {metric:11s}  {group:12s}  calibrated  {refitted.rows:6d}  "
                    f"{100 * refitted.mape:4.1f} %") in out
    assert scored[("decode_tps", "yours", "calibrated")].rows == 1
    capsys.readouterr()
    assert main(["--no-plugins", "packs", "validate", str(folder)]) == 0, capsys.readouterr()


def test_profile_mine_uses_the_refitted_constants_and_only_then(calibrated):
    registry = calibrated[4]
    shipped = fitproof.estimate(**SCENARIO, registry=registry, profile="measured")
    mine = fitproof.estimate(**SCENARIO, registry=registry, profile="mine")
    assert mine.value("decode_tps") != shipped.value("decode_tps")
    # the default profile, and the engine packs, keep the shipped constants
    assert fitproof.estimate(**SCENARIO, registry=registry).value("decode_tps") == \
        shipped.value("decode_tps")
    assert registry.with_profile("mine").engines["llama.cpp"] != registry.engines["llama.cpp"]
    # an engine the profile does not refit reads its own pack's figures under either profile
    assert "vllm" not in registry.profiles["mine"].engines
    assert registry.with_profile("mine").engines["vllm"] is registry.engines["vllm"]
    # a refitted figure's derivation cites the profile's file
    figure = registry.with_profile("mine").entity("engine", "llama.cpp").keyed(
        "decode_bandwidth_efficiency", "cuda")
    assert figure.at.file.endswith("profiles/mine.yaml") and figure.at.line > 1


def test_estimate_profile_mine_on_the_command_line(calibrated, capsys):
    folder = calibrated[0]
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("FITPROOF_USER_PACKS", str(folder))
        patch.setenv("FITPROOF_CACHE_DIR", "off")
        cards = {}
        for profile in ("measured", "mine"):
            assert main(["--no-plugins", "estimate", SCENARIO["model"], "--on", "rtx-4080",
                         "--quant", "Q4_K_M", "--profile", profile]) == 0
            cards[profile] = [line for line in capsys.readouterr().out.splitlines()
                              if line.strip().startswith("Decode") and "~" in line]
        assert cards["measured"] and cards["mine"] and cards["measured"] != cards["mine"]


def _error(capsys, folder: Path, *argv: str) -> tuple[int, str]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("FITPROOF_USER_PACKS", str(folder))
        patch.setenv("FITPROOF_CACHE_DIR", "off")
        code = main(["--no-plugins", "calibrate", "--repeats", "1", *argv])
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1, err  # one line
    return code, err


def test_a_shipped_profile_name_is_refused(calibrated, capsys):
    code, err = _error(capsys, calibrated[0], "--name", "measured")
    assert code == 2 and "--name 'measured'" in err and "choose another name" in err


def test_an_existing_profile_is_kept_without_force(calibrated, capsys):
    path = calibrated[0] / "profiles" / "mine.yaml"
    before = path.read_bytes()
    code, err = _error(capsys, calibrated[0])
    assert code == 2 and err == f"fitproof: error: {path} exists; pass --force to overwrite it\n"
    assert path.read_bytes() == before


def test_no_rows_of_yours(tmp_path, capsys):
    code, err = _error(capsys, tmp_path / "empty")
    assert code == 2 and "no measurement row of yours" in err and "bench ingest" in err


@pytest.mark.parametrize("repeats", ["1000000000", "101", "0", "-3"])
def test_repeats_out_of_bounds_is_one_line_before_any_work(tmp_path, capsys, monkeypatch,
                                                           repeats):
    """--repeats is refused before the fit (no scipy check, no rows loaded): a billion
    splits ended in a MemoryError traceback, 100,000 ran for minutes."""
    from fitproof.calibration import calibrate as module

    def no_work(*args, **kwargs):
        raise AssertionError("calibrate did work before checking --repeats")

    monkeypatch.setattr(module, "require_scipy", no_work)
    monkeypatch.setattr(module, "load", no_work)
    monkeypatch.setenv("FITPROOF_USER_PACKS", str(tmp_path / "packs"))
    monkeypatch.setenv("FITPROOF_CACHE_DIR", "off")
    code = main(["--no-plugins", "calibrate", "--repeats", repeats])
    out, err = capsys.readouterr()
    assert (code, out) == (2, "")
    assert err == (f"fitproof: error: --repeats {int(repeats)}: give from 1 to "
                   f"{module.MAX_REPEATS} device splits\n")
    assert module.MAX_REPEATS == 100
    assert not (tmp_path / "packs").exists()


def test_without_scipy_calibrate_says_what_to_install(tmp_path, capsys, monkeypatch):
    find_spec = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "scipy" else find_spec(name, *a))
    code, err = _error(capsys, tmp_path / "empty")
    assert code == 2
    assert err == "fitproof: error: fitting speed constants needs scipy: pip install 'fitproof[fit]'\n"


# -- serving rows ----------------------------------------------------------------------------

VLLM = BENCH / "vllm-bench-serve-h100x8.json"
SERVING_SETUP = ("llama-3.1-70b", "--on", "h100-80gb-sxm", "--quant", "BF16", "--gpus", "8",
                 "--engine", "vllm", "--batch", "50")


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """A user pack folder with only the serving rows of one vllm bench serve run (Llama 3.1
    70B on 8 x H100, 50 in flight) and the profile one calibrate run wrote from them."""
    import contextlib
    import io

    folder = tmp_path_factory.mktemp("serving") / "packs"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("FITPROOF_USER_PACKS", str(folder))
        patch.setenv("FITPROOF_CACHE_DIR", "off")
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(io.StringIO()):
            assert main(["--no-plugins", "bench", "ingest", str(VLLM), "--model", "llama-3.1-70b",
                         "--on", "h100-80gb-sxm", "--quant", "BF16", "--gpus", "8"]) == 0
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(["--no-plugins", "calibrate", "--repeats", "1"])
        yield folder, code, out.getvalue(), err.getvalue(), fitproof.load_registry(plugins=False)


def test_serving_rows_alone_refit_the_serving_constants(served, capsys):
    folder, code, out, err, registry = served
    assert code == 0, err  # no single-stream row of the user's is asked for
    assert "Refitted vllm on " in out and "29 output_tps rows (1 yours)" in out
    assert "each device left out in turn" in out
    profile = registry.profiles["mine"]
    assert set(profile.engines) == {"vllm"}
    assert profile.calibration.user_measurements == ("bench-vllm-bench-serve-h100x8",)
    assert {m: n for m, n in profile.calibration.user_rows.items() if n} == {
        "output_tps": 1, "tpot_ms": 1, "ttft_ms": 1}
    # the held-out error of both sets of constants on the same rows, as printed
    scored = {(s.metric, s.group, s.constants): s for s in profile.calibration.held_out}
    printed_scores = {(m, g, c): (int(n), float(mape)) for line in out.splitlines()
                      if line.startswith("vllm ")
                      for _, m, g, c, n, mape, *_ in [line.split()]}
    for metric in ("output_tps", "tpot_ms", "ttft_ms"):
        for group in ("all", "yours", "yours-in-fit"):
            shipped, refitted = scored[(metric, group, "shipped")], scored[(metric, group, "calibrated")]
            assert shipped.rows == refitted.rows == (1 if group != "all" else shipped.rows)
            for s in (shipped, refitted):  # the profile keeps 4 significant digits
                printed = printed_scores[(metric, group, s.constants)]
                assert printed[0] == s.rows and abs(printed[1] - 100 * s.mape) <= 0.051
    # the refitted serving block, with its held-out scores, is the profile's
    vllm = profile.engines["vllm"]
    assert vllm.request_overhead_s is not None and vllm.output_band_low is not None
    assert vllm.held_out_accuracy.profile == "mine"
    capsys.readouterr()
    assert main(["--no-plugins", "packs", "validate", str(folder)]) == 0, capsys.readouterr()


def test_profile_mine_uses_the_refitted_serving_constants(served, capsys):
    folder, registry = served[0], served[4]
    mine = registry.with_profile("mine")
    figure = mine.entity("engine", "vllm").keyed("prefill_compute_efficiency", "cuda")
    assert figure.at.file.endswith("profiles/mine.yaml")
    assert registry.with_profile("measured").engines["vllm"] is registry.engines["vllm"]
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("FITPROOF_USER_PACKS", str(folder))
        patch.setenv("FITPROOF_CACHE_DIR", "off")
        cards = {}
        for profile in ("measured", "mine"):
            assert main(["--no-plugins", "estimate", *SERVING_SETUP, "--profile", profile]) == 0
            cards[profile] = [line for line in capsys.readouterr().out.splitlines()
                              if line.strip().startswith("Output") and "in flight" in line]
    assert cards["measured"] and cards["mine"] and cards["measured"] != cards["mine"]


def test_serving_rows_on_too_few_devices_are_one_line(tmp_path, capsys):
    """SGLang's shipped rows are on B200 and MI300X; runs of the user's on B200 leave it
    two devices, one short of a serving fit."""
    folder = tmp_path / "packs"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("FITPROOF_USER_PACKS", str(folder))
        patch.setenv("FITPROOF_CACHE_DIR", "off")
        assert main(["--no-plugins", "bench", "ingest", str(BENCH / "sglang-bench-serving-h100x8.jsonl"),
                     "--on", "b200-180gb", "--quant", "BF16"]) == 0
    capsys.readouterr()
    code, err = _error(capsys, folder)
    assert code == 2 and err.startswith("fitproof: error: sglang: 6 serving rows of yours")
    assert "a serving fit needs rows on 3" in err and "not refitted" in err
