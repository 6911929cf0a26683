"""Packs from plugins, --pack-dir and FITPROOF_PACK_PATH all go through the same loader."""

from __future__ import annotations

import textwrap

import pytest

import fitproof
from fitproof.cli import main
from fitproof.errors import PackError
from fitproof.hookspecs import hookimpl

from .conftest import REPO, write_pack

CARD = textwrap.dedent("""\
    kind: hardware
    id: test-card-48gb
    name: Test Card 48GB
    vendor: Acme
    aliases: [Test Card]
    source: test fixture
    unified_memory: false
    memory_gb: 48
    memory_bandwidth_gbs: 1000
    """)


def test_plugin_registers_a_folder(tmp_path):
    write_pack(tmp_path, "hardware/test-card-48gb.yaml", CARD)

    class Plugin:
        @hookimpl
        def register_packs(self, register):
            register(tmp_path)

    registry = fitproof.load_registry(plugins=False, extra_plugins=[Plugin()], profile="seed")
    pack = registry.pack_of("hardware", "test-card-48gb")
    assert pack.path.endswith("hardware/test-card-48gb.yaml")
    result = fitproof.estimate("qwen3.5-35b-a3b", "Test Card", registry=registry)
    assert result.value("usable_gib") == 45.6


def test_pack_path_environment_variable(tmp_path, monkeypatch):
    write_pack(tmp_path, "test-card-48gb.yaml", CARD)
    monkeypatch.setenv("FITPROOF_PACK_PATH", str(tmp_path))
    registry = fitproof.load_registry(plugins=False, profile="seed")
    assert registry.pack_of("hardware", "test-card-48gb").origin == "FITPROOF_PACK_PATH"


def test_a_failing_plugin_is_reported_by_name_and_the_rest_works():
    class Broken:
        @hookimpl
        def register_packs(self, register):
            raise RuntimeError("boom")

    registry = fitproof.load_registry(plugins=False, extra_plugins=[Broken()], profile="seed")
    assert len(registry.warnings) == 1
    assert "failed in register_packs: RuntimeError: boom" in registry.warnings[0]
    assert "rtx-3090" in registry.hardware


def test_builtin_packs_come_through_the_hook():
    from fitproof.api import builtin
    from fitproof.registry.plugins import collect_pack_roots, plugin_manager

    plugins = plugin_manager(entry_points_group=None)
    assert plugins.manager.is_registered(builtin)
    roots, warnings = collect_pack_roots(plugins)
    assert [r.label for r in roots] == ["packs"] and not warnings


# --- isolation: a broken plugin is named, left out, and the rest keeps working ----------

def _install_fake_entry_points(monkeypatch, tmp_path, modules: dict[str, str]):
    """Make ``fitproof.registry.plugins.entry_points`` see one entry point per module written here."""
    from importlib.metadata import EntryPoint

    import fitproof.registry.plugins

    for name, text in modules.items():
        (tmp_path / f"{name}.py").write_text(textwrap.dedent(text), encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    points = [EntryPoint(name=name, value=name, group="fitproof") for name in modules]
    monkeypatch.setattr(fitproof.registry.plugins, "entry_points",
                        lambda group: points if group == "fitproof" else [])


BAD_PACK_PLUGIN = """\
    from pathlib import Path
    from fitproof.hookspecs import hookimpl

    @hookimpl
    def register_packs(register):
        register(Path(__file__).parent / "bad_packs")
    """


def test_a_plugin_with_an_invalid_pack_is_disabled_with_a_warning(tmp_path, monkeypatch):
    write_pack(tmp_path / "bad_packs", "hardware/test-card-48gb.yaml",
               CARD.replace("memory_gb: 48", "memory_gb: -48"))
    write_pack(tmp_path / "bad_packs", "hardware/good-card.yaml",
               CARD.replace("test-card-48gb", "good-card").replace("Test Card", "Good Card"))
    _install_fake_entry_points(monkeypatch, tmp_path, {"fp_bad_packs": BAD_PACK_PLUGIN})
    registry = fitproof.load_registry()
    assert len(registry.warnings) == 1
    warning = registry.warnings[0]
    assert warning.startswith("plugin 'fp_bad_packs:fp_bad_packs' is disabled; its packs have "
                              "1 problem(s):")
    assert warning.endswith("\n    fp_bad_packs:bad_packs/hardware/test-card-48gb.yaml:8: "
                            "memory_gb: must be greater than 0 (got -48)")
    # the whole plugin is out (its valid pack too); the built-in packs all work
    assert "good-card" not in registry.hardware and "test-card-48gb" not in registry.hardware
    assert fitproof.estimate("qwen3.5-35b-a3b", "arc-pro-b60", registry=registry,
                             profile="seed").value("total_gib") == 21.28

    with pytest.raises(PackError) as caught:
        fitproof.load_registry(strict=True)
    assert [str(p) for p in caught.value.problems] == [
        "fp_bad_packs:bad_packs/hardware/test-card-48gb.yaml:8: memory_gb: must be greater "
        "than 0 (got -48)"]


def test_cli_warns_about_a_broken_plugin_and_strict_fails(tmp_path, monkeypatch, capsys):
    _install_fake_entry_points(monkeypatch, tmp_path, {
        "fp_missing_dependency": "import fitproof_no_such_dependency\n",
        "fp_garbage": """\
            from fitproof.hookspecs import hookimpl

            @hookimpl
            def register_packs(register):
                register(42)
            """})
    code = main(["estimate", "qwen3.5-35b-a3b", "--on", "arc-pro-b60"])
    out, err = capsys.readouterr()
    assert code == 0 and "Fits with Safe Headroom" in out
    assert err.splitlines() == [
        "fitproof: warning: plugin 'fp_missing_dependency' from fp_missing_dependency failed "
        "to load: ModuleNotFoundError: No module named 'fitproof_no_such_dependency'",
        "fitproof: warning: plugin 'fp_garbage:fp_garbage' failed in register_packs: "
        "TypeError: register() takes a folder path, got int"]

    code = main(["estimate", "qwen3.5-35b-a3b", "--on", "arc-pro-b60", "--strict"])
    out, err = capsys.readouterr()
    assert code == 1 and out == ""
    assert err.splitlines() == [
        "fitproof: 2 problems in packs:",
        "  (--strict) plugin 'fp_garbage:fp_garbage' failed in register_packs: TypeError: "
        "register() takes a folder path, got int",
        "  (--strict) plugin 'fp_missing_dependency' from fp_missing_dependency failed to "
        "load: ModuleNotFoundError: No module named 'fitproof_no_such_dependency'"]
    assert "Traceback" not in err

    # packs validate fails while a plugin is broken, even when the given packs are fine
    code = main(["packs", "validate", str(REPO / "packs" / "hardware" / "rtx-3090.yaml")])
    out, err = capsys.readouterr()
    assert code == 1
    assert "plugin 'fp_garbage:fp_garbage' failed in register_packs" in out + err

    # --no-plugins leaves them out and says nothing
    code = main(["estimate", "qwen3.5-35b-a3b", "--on", "arc-pro-b60", "--no-plugins"])
    out, err = capsys.readouterr()
    assert code == 0 and err == ""


def test_packs_show_tells_which_pack_won_and_why(tmp_path, capsys):
    write_pack(tmp_path, "rtx-3090.yaml", textwrap.dedent("""\
        kind: hardware
        id: rtx-3090
        override: true
        name: RTX 3090 (power-capped)
        vendor: NVIDIA
        source: my own measurement
        unified_memory: false
        memory_gb: 24
        memory_bandwidth_gbs: 800
        """))
    code = main(["packs", "show", "rtx-3090", "--no-plugins", "--pack-dir", str(tmp_path)])
    out, _ = capsys.readouterr()
    assert code == 0
    assert out.splitlines()[1:5] == [
        f"  file:   {tmp_path}/rtx-3090.yaml",
        "  from:   --pack-dir",
        "  overrides: packs/hardware/rtx-3090.yaml (from fitproof)",
        "  wins:   declares 'override: true' (line 3) and loads after the packs it replaces"]
    code = main(["packs", "show", "rtx-3090", "--no-plugins"])
    out, _ = capsys.readouterr()
    assert "  wins:   the only hardware pack with id 'rtx-3090'" in out.splitlines()


def test_a_plugin_reusing_a_builtin_id_is_refused_unless_it_overrides(tmp_path, monkeypatch,
                                                                      capsys):
    card = textwrap.dedent("""\
        kind: hardware
        id: rtx-3090
        name: RTX 3090 (factory overclocked)
        vendor: NVIDIA
        source: test fixture
        unified_memory: false
        memory_gb: 24
        memory_bandwidth_gbs: 1000
        """)
    write_pack(tmp_path / "bad_packs", "hardware/rtx-3090.yaml", card)
    _install_fake_entry_points(monkeypatch, tmp_path, {"fp_clashing": BAD_PACK_PLUGIN})
    registry = fitproof.load_registry()
    assert registry.warnings == (
        "plugin 'fp_clashing:fp_clashing' is disabled; its packs have 1 problem(s):\n"
        "    fp_clashing:bad_packs/hardware/rtx-3090.yaml:2: id: hardware id 'rtx-3090' is "
        "already defined by packs/hardware/rtx-3090.yaml (from fitproof); ids must be "
        "unique, or add 'override: true' to replace it",)
    assert registry.hardware["rtx-3090"].memory_bandwidth_gbs.value == 936

    write_pack(tmp_path / "bad_packs", "hardware/rtx-3090.yaml",
               card.replace("id: rtx-3090\n", "id: rtx-3090\noverride: true\n"))
    # a plugin replaces a built-in pack only with the user's consent
    registry = fitproof.load_registry()
    assert registry.warnings == (
        "plugin 'fp_clashing:fp_clashing' is disabled; its packs have 1 problem(s):\n"
        "    fp_clashing:bad_packs/hardware/rtx-3090.yaml:3: override: replaces the built-in "
        "hardware rtx-3090 (packs/hardware/rtx-3090.yaml:2); a pack from "
        "fp_clashing:fp_clashing may replace fitproof's own only with --allow-override (or "
        "FITPROOF_ALLOW_OVERRIDE=1)",)
    assert registry.hardware["rtx-3090"].memory_bandwidth_gbs.value == 936
    registry = fitproof.load_registry(allow_override=True)
    assert registry.warnings == ()
    assert registry.hardware["rtx-3090"].memory_bandwidth_gbs.value == 1000
    code = main(["--allow-override", "packs", "show", "rtx-3090"])
    out, _ = capsys.readouterr()
    assert code == 0 and out.splitlines()[1:5] == [
        "  file:   fp_clashing:bad_packs/hardware/rtx-3090.yaml",
        "  from:   fp_clashing:fp_clashing",
        "  overrides: packs/hardware/rtx-3090.yaml (from fitproof)",
        "  wins:   declares 'override: true' (line 3) and loads after the packs it replaces"]


BROKEN_PLUGINS = {
    "exits at import": "import sys\nsys.exit(3)\n",
    "interrupts at import": "raise KeyboardInterrupt\n",
    "exits in its hook": ("import sys\nfrom fitproof.hookspecs import hookimpl\n\n"
                          "@hookimpl\ndef register_packs(register):\n    sys.exit(0)\n"),
    "registers a missing folder": (
        "from pathlib import Path\nfrom fitproof.hookspecs import hookimpl\n\n"
        "@hookimpl\ndef register_packs(register):\n"
        "    register(Path(__file__).parent / 'no-such-folder')\n"),
    "registers a device": ("from fitproof.hookspecs import hookimpl\n\n"
                           "@hookimpl\ndef register_packs(register):\n"
                           "    register('/dev/zero')\n"),
}


@pytest.mark.parametrize("case", BROKEN_PLUGINS)
def test_a_plugin_that_exits_interrupts_or_registers_nothing_readable_is_left_out(
        tmp_path, monkeypatch, capsys, case):
    name = "fp_" + case.replace(" ", "_")
    _install_fake_entry_points(monkeypatch, tmp_path, {name: BROKEN_PLUGINS[case]})
    code = main(["estimate", "qwen3.5-35b-a3b", "--on", "arc-pro-b60", "--json"])
    out, err = capsys.readouterr()
    assert code == 0 and '"verdict"' in out  # the tool goes on without it
    assert "Traceback" not in err
    assert err.startswith("fitproof: warning: plugin ") and name in err
    code = main(["estimate", "qwen3.5-35b-a3b", "--on", "arc-pro-b60", "--strict"])
    out, err = capsys.readouterr()
    assert code == 1 and out == "" and name in err


CATALOG = textwrap.dedent("""\
    kind: catalog
    id: fr
    name: Français
    source: test fixture
    decimal_separator: ","
    thousands_separator: " "
    messages:
      title: "{model} sur {hardware}"
    """)


def test_a_plugin_catalog_is_checked_like_any_pack_and_a_partial_one_falls_back(
        tmp_path, monkeypatch, capsys):
    write_pack(tmp_path / "bad_packs", "catalogs/fr.yaml",
               CATALOG + '  intro: "{model.__class__} {model:>300000000}"\n')
    _install_fake_entry_points(monkeypatch, tmp_path, {"fp_bad_catalog": BAD_PACK_PLUGIN})
    code = main(["report", "qwen3-8b", "--lang", "fr"])
    out, err = capsys.readouterr()
    assert code == 2 and out == "" and "Traceback" not in err
    assert err.splitlines()[0] == ("fitproof: warning: plugin 'fp_bad_catalog:fp_bad_catalog' is "
                                   "disabled; its packs have 2 problem(s):")
    assert ("fp_bad_catalog:bad_packs/catalogs/fr.yaml:9: messages.intro: placeholder "
            "{model.__class__} is not a plain name") in err
    assert err.splitlines()[-1] == "fitproof: error: no catalog for language 'fr'; available: de, en, es"

    # a catalog that passes is used, and a message it lacks is the English one
    write_pack(tmp_path / "bad_packs", "catalogs/fr.yaml", CATALOG)
    code = main(["report", "qwen3-8b", "--on", "rtx-3090", "--lang", "fr"])
    out, err = capsys.readouterr()
    assert code == 0 and err == ""
    assert out.splitlines()[0] == "Qwen3 8B sur RTX 3090"
    assert "(8,19B total, 8,19B active, Dense Transformer (GQA)) uses 4,68 GiB" in out
