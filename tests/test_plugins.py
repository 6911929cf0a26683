"""Packs from plugins, --pack-dir and FITPROOF_PACK_PATH all go through the same loader."""

from __future__ import annotations

import textwrap

import fitproof
from fitproof.hookspecs import hookimpl

from .conftest import write_pack

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

    registry = fitproof.load_registry(plugins=False, extra_plugins=[Plugin()])
    pack = registry.pack_of("hardware", "test-card-48gb")
    assert pack.path.endswith("hardware/test-card-48gb.yaml")
    result = fitproof.estimate("qwen3.5-35b-a3b", "Test Card", registry=registry)
    assert result.value("usable_gib") == 45.6


def test_pack_path_environment_variable(tmp_path, monkeypatch):
    write_pack(tmp_path, "test-card-48gb.yaml", CARD)
    monkeypatch.setenv("FITPROOF_PACK_PATH", str(tmp_path))
    registry = fitproof.load_registry(plugins=False)
    assert registry.pack_of("hardware", "test-card-48gb").origin == "FITPROOF_PACK_PATH"


def test_a_failing_plugin_is_reported_by_name_and_the_rest_works():
    class Broken:
        @hookimpl
        def register_packs(self, register):
            raise RuntimeError("boom")

    registry = fitproof.load_registry(plugins=False, extra_plugins=[Broken()])
    assert len(registry.warnings) == 1
    assert "failed in register_packs: RuntimeError: boom" in registry.warnings[0]
    assert "rtx-3090" in registry.hardware


def test_builtin_packs_come_through_the_hook():
    from fitproof import builtin
    from fitproof.plugins import collect_pack_roots, plugin_manager

    plugins = plugin_manager(entry_points_group=None)
    assert plugins.manager.is_registered(builtin)
    roots, warnings = collect_pack_roots(plugins)
    assert [r.label for r in roots] == ["packs"] and not warnings
