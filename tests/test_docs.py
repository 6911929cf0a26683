"""The documentation stays true: hooks, README commands, CI, and the pack template."""

from __future__ import annotations

import inspect
import re

from fitproof import hookspecs
from fitproof.api.validate import validate_paths

from .conftest import REPO


def test_every_hook_is_documented():
    text = (REPO / "docs" / "plugin-hooks.md").read_text(encoding="utf-8")
    hooks = [name for name, value in inspect.getmembers(hookspecs, inspect.isfunction)
             if hasattr(value, "fitproof_spec")]
    assert hooks, "no hooks found"
    for name in hooks:
        signature = inspect.signature(getattr(hookspecs, name))
        heading = f"## `{name}({', '.join(signature.parameters)})`"
        assert heading in text, f"docs/plugin-hooks.md lacks the section {heading!r}"
        section = text.split(heading, 1)[1].split("\n## ", 1)[0]
        for part in ("**Parameters**", "**Returns**", "**Example**", "@fitproof.hookimpl"):
            assert part in section, f"section {name} lacks {part}"


def test_ci_runs_the_readme_test_command():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    command = ci.strip().splitlines()[-1]
    assert command.startswith("python3 -m venv .venv")
    assert command in readme


def test_readme_mentions_every_command():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    for command in ("fitproof estimate", "fitproof report", "fitproof explain", "fitproof packs list",
                    "fitproof packs show", "fitproof packs validate", "fitproof models",
                    "fitproof import hf", "fitproof import gguf", "fitproof sweep", "fitproof site",
                    "fitproof validate", "fitproof detect", "fitproof solve",
                    "fitproof calibrate"):
        assert re.search(rf"^\$ {command}", readme, re.M), f"README lacks an example of {command}"


def test_the_hardware_template_is_a_valid_pack(tmp_path):
    template = (REPO / "examples" / "hardware-template.yaml").read_text(encoding="utf-8")
    target = tmp_path / "acme-x1-48gb.yaml"
    target.write_text(template, encoding="utf-8")
    report = validate_paths([str(target)], plugins=False)
    assert report.ok, report


def test_the_python_api_example_prints_what_readme_says():
    import re

    import fitproof

    readme = (REPO / "README.md").read_text(encoding="utf-8")
    block = readme.split("## Python API")[1].split("```python")[1].split("```")[0]
    registry = fitproof.load_registry(plugins=False)
    result = fitproof.estimate("qwen3.5-35b-a3b", "arc-pro-b60", context=32768, registry=registry)
    assert re.search(rf'result.value\("total_gib"\)\s+# {result.value("total_gib")}\n', block)
    moe = fitproof.estimate("qwen3-30b-a3b", "rtx-3060-12gb", cpu_moe=24,
                            host="desktop-ddr4-3200-2ch", registry=registry)
    shown = ", ".join(f"{moe.value(n):.1f}" for n in ("decode_tps", "decode_tps_low", "decode_tps_high"))
    assert f"# {shown}" in block


def test_every_pack_line_the_docs_show_is_the_line_they_name():
    """Each ``packs/…yaml:N`` README.md and CONTRIBUTING.md print is the line where the
    quantity shown next to it is defined in that pack (they go stale when a pack grows)."""
    import re

    shown = 0
    for doc in ("README.md", "CONTRIBUTING.md"):
        lines = (REPO / doc).read_text(encoding="utf-8").splitlines()
        for number, line in enumerate(lines):
            for path, at in re.findall(r"(?<![\w-])(packs/[\w./-]+\.yaml):(\d+)", line):
                target = (REPO / path).read_text(encoding="utf-8").splitlines()[int(at) - 1]
                if target.lstrip().startswith("- {"):  # a measurement row: its value is shown
                    import yaml

                    row = yaml.safe_load(target.strip()[2:])
                    from fitproof.renderers.display import significant

                    shown_value = significant(row["value"])
                    assert shown_value in " ".join(lines[number - 1:number + 1]), \
                        f"{doc}:{number + 1}: {path}:{at} measured {row['value']}, not shown"
                    shown += 1
                    continue
                key = re.match(r"\s*([\w.-]+):", target)
                assert key, f"{doc}:{number + 1}: {path}:{at} is not a definition: {target!r}"
                # the quantity is named on the line, or (an overridden definition) on the
                # explain line above it
                context = line if "overrides" not in line else lines[number - 4:number + 1]
                assert key.group(1) in " ".join(context if isinstance(context, list) else
                                                [context]), \
                    f"{doc}:{number + 1}: {path}:{at} defines {key.group(1)}, not what it shows"
                shown += 1
    assert shown >= 5


def test_every_section_of_the_seed_formulas_a_pack_cites_is_in_the_repository():
    """Packs cite docs/reference/seed-formulas.md (the reverse-engineered seed pages) by
    section; the document ships in the repository, and each section cited is a heading of
    it, so every derivation ends at a page a user can open."""
    import re

    document = REPO / "docs" / "reference" / "seed-formulas.md"
    sections = set(re.findall(r"^##+ (\d+)[a-z]?\. ", document.read_text(encoding="utf-8"),
                              re.M))
    cited = set()
    for pack in (REPO / "packs").rglob("*.yaml"):
        text = pack.read_text(encoding="utf-8")
        assert "seed-formulas.md" not in text.replace("docs/reference/seed-formulas.md", ""), \
            f"{pack} cites seed-formulas.md by a path outside the repository"
        cited |= set(re.findall(r"docs/reference/seed-formulas\.md §(\d+)", text))
    assert len(cited) >= 10
    assert cited <= sections, sorted(cited - sections)
