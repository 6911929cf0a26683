"""Cross-pack checks, each a named function: references between packs, shared id spaces,
templates. ``CHECKS`` runs before the formula graph is built, ``check_scenarios`` after.

A check takes the loaded packs and returns problems (``file:line: field: message``); to add
one, write the function and list it in ``CHECKS``.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterable, Sequence

from ..errors import InputError, Problem
from ..specs import TENSOR_CLASSES
from ..views.message_format import placeholders
from ..views.message_format import problems as message_problems
from ..views.results import LoadedPack
from .input_checks import checked_input
from .launch import template_problems
from .names import name_key
from .namespaces import known_field_names
from .quant_formats import type_of


def _path(field: str) -> list[str | int]:
    """``a.0.b`` as the key path a pack's line index takes."""
    return [int(part) if part.isdigit() else part for part in field.split(".")]


def check_shared_ids(loaded: Sequence[LoadedPack]) -> list[Problem]:
    """Quantization formats, block types and KV cache types share one id space each."""
    problems: list[Problem] = []
    # quant formats, block types and KV types share one id space each across packs
    for kind, attribute in (("quantization", "formats"), ("quantization", "types"),
                            ("kv_cache", "types")):
        owners: dict[str, LoadedPack] = {}
        for pack in loaded:
            if pack.kind != kind:
                continue
            for item in getattr(pack.obj, attribute):
                if item in owners:
                    problems.append(Problem(
                        f"{item!r} is already defined by {owners[item].path}", pack.path,
                        pack.obj.pack.line_of(attribute, item), f"{attribute}.{item}"))
                owners[item] = pack
    return problems


def check_aliases(loaded: Sequence[LoadedPack]) -> list[Problem]:
    """An id, alias or recorded Hugging Face repository (a model is called by it) names
    one pack of its kind only."""
    problems: list[Problem] = []
    # aliases must name one pack only
    names: dict[tuple[str, str], tuple[str, LoadedPack]] = {}
    for pack in loaded:
        aliases = tuple(getattr(pack.obj, "aliases", ()))
        called: list[tuple[str, tuple[str | int, ...], str]] = [(pack.id, ("id",), "id")]
        called += [(alias, ("aliases", i), f"aliases.{i}") for i, alias in enumerate(aliases)]
        repository = getattr(pack.obj, "hf_repo", None) if pack.kind == "model" else None
        if repository:
            called.append((repository, ("hf_repo",), "hf_repo"))
        for alias, where, field in called:
            key = (pack.kind, name_key(alias))
            if key in names and names[key][1].id != pack.id:
                other = names[key][1]
                # the clash is the pack's id, one of its aliases or its repository
                problems.append(Problem(
                    f"name {alias!r} also refers to {other.kind} {other.id!r} ({other.path})",
                    pack.path, pack.obj.pack.line_of(*where), field))
            names.setdefault(key, (alias, pack))
    return problems


def check_launch_templates(loaded: Sequence[LoadedPack]) -> list[Problem]:
    """Engine launch templates name pack fields and formulas that exist."""
    problems: list[Problem] = []
    numbers = {name for p in loaded if p.kind == "formulas" for name in p.obj.formulas} | \
        {name for p in loaded if p.kind == "inputs" for name in p.obj.inputs} | \
        set(known_field_names())
    for pack in loaded:
        if pack.kind == "engine":
            for field, message in template_problems(pack.obj, numbers):
                problems.append(Problem(message, pack.path,
                                        pack.obj.pack.line_of(*_path(field)), field))
    return problems


def check_checkpoint_formats(loaded: Sequence[LoadedPack]) -> list[Problem]:
    """A model's checkpoint_format is a known format."""
    problems: list[Problem] = []
    format_ids = {f for p in loaded if p.kind == "quantization" for f in p.obj.formats}
    for pack in loaded:
        wanted = getattr(pack.obj, "checkpoint_format", None) if pack.kind == "model" else None
        if wanted is not None and wanted not in format_ids:
            problems.append(Problem(f"unknown format {wanted!r}"
                                    f"{_did_you_mean(wanted, format_ids)}", pack.path,
                                    pack.obj.pack.line_of("checkpoint_format"),
                                    "checkpoint_format"))
    return problems


def check_families(loaded: Sequence[LoadedPack]) -> list[Problem]:
    """A model's architecture family, and each family an importer pack assigns, has an
    architecture pack."""
    problems: list[Problem] = []
    families = {p.id for p in loaded if p.kind == "architecture"}

    def unknown(family: str, pack: LoadedPack, *key: str | int) -> None:
        close = difflib.get_close_matches(family, sorted(families), n=1)
        hint = f"; did you mean {close[0]!r}?" if close else \
            f"; families are {', '.join(sorted(families))}"
        problems.append(Problem(f"unknown architecture family {family!r}{hint}", pack.path,
                                pack.obj.pack.line_of(*key), ".".join(map(str, key))))

    for pack in loaded:
        if pack.kind == "model" and pack.obj.family not in families:
            unknown(pack.obj.family, pack, "family")
        elif pack.kind == "importer":
            for index, rule in enumerate(pack.obj.families):
                if rule.family not in families:
                    unknown(rule.family, pack, "families", index, "family")
    return problems


def check_offers(loaded: Sequence[LoadedPack]) -> list[Problem]:
    """Cloud offers name known hardware, with ids unique within their provider."""
    problems: list[Problem] = []
    hardware = {p.id for p in loaded if p.kind == "hardware"}
    for pack in loaded:
        if pack.kind == "provider":
            offer_ids = set()
            for offer in pack.obj.offers:
                line = pack.obj.pack.line_of("offers", offer.index, "hardware")
                if offer.hardware not in hardware:
                    hint = _did_you_mean(offer.hardware, hardware)
                    problems.append(Problem(f"unknown hardware {offer.hardware!r}{hint}",
                                            pack.path, line, f"offers.{offer.index}.hardware"))
                if offer.id in offer_ids:
                    problems.append(Problem(f"offer id {offer.id!r} is used twice", pack.path,
                                            pack.obj.pack.line_of("offers", offer.index, "id"),
                                            f"offers.{offer.index}.id"))
                offer_ids.add(offer.id)
    return problems


def check_profiles(loaded: Sequence[LoadedPack]) -> list[Problem]:
    """Profiles: one default, known parents without cycles, formula and selection packs
    naming a profile that exists."""
    problems: list[Problem] = []
    profiles = {p.id: p for p in loaded if p.kind == "profile"}
    defaults = [p for p in profiles.values() if p.obj.default]
    if profiles and not defaults:
        first = next(iter(profiles.values()))
        problems.append(Problem("no profile says 'default: true'; exactly one must",
                                first.path, first.obj.pack.line_of("id"), "default"))
    for extra in defaults[1:]:
        problems.append(Problem(f"profile {defaults[0].id!r} ({defaults[0].path}) is already "
                                "the default; only one profile may say 'default: true'",
                                extra.path, extra.obj.pack.line_of("default"), "default"))

    def unknown(name: str) -> str:
        close = difflib.get_close_matches(name, sorted(profiles), n=1)
        hint = f"; did you mean {close[0]!r}?" if close else \
            (f"; profiles are {', '.join(sorted(profiles))}" if profiles else
             "; no profile pack is loaded")
        return f"unknown profile {name!r}{hint}"

    for pack in profiles.values():
        parent, seen = pack.obj.extends, [pack.id]
        while parent is not None:
            if parent not in profiles:
                problems.append(Problem(unknown(parent), pack.path,
                                        pack.obj.pack.line_of("extends"), "extends"))
                break
            if parent in seen:
                problems.append(Problem("profiles extend each other in a cycle: "
                                        + " → ".join([*seen, parent]), pack.path,
                                        pack.obj.pack.line_of("extends"), "extends"))
                break
            seen.append(parent)
            parent = profiles[parent].obj.extends
    for pack in loaded:
        if pack.kind in ("formulas", "selections") and pack.obj.profile is not None \
                and pack.obj.profile not in profiles:
            problems.append(Problem(unknown(pack.obj.profile), pack.path,
                                    pack.obj.pack.line_of("profile"), "profile"))
    return problems


def _did_you_mean(value: str, options: Iterable[str]) -> str:
    """``; did you mean 'x'?`` for the closest of ``options``, or nothing."""
    close = difflib.get_close_matches(value, sorted(options), n=1)
    return f"; did you mean {close[0]!r}?" if close else ""


def check_measurements(loaded: Sequence[LoadedPack]) -> list[Problem]:
    """Every measurement names packs that exist (its scenario must be one fitproof can
    evaluate)."""
    known = {
        "model": {p.id for p in loaded if p.kind == "model"},
        "hardware": {p.id for p in loaded if p.kind == "hardware"},
        "engine": {p.id for p in loaded if p.kind == "engine"},
        "quant": {f for p in loaded if p.kind == "quantization" for f in p.obj.formats},
        "kv": {t for p in loaded if p.kind == "kv_cache" for t in p.obj.types},
    }
    problems = []
    for pack in loaded:
        if pack.kind != "measurements":
            continue
        for index, row in enumerate(pack.obj.rows):
            for field, ids in known.items():
                value = getattr(row, field)
                if value not in ids:
                    problems.append(Problem(f"unknown {field} {value!r}"
                                            f"{_did_you_mean(value, ids)}", pack.path,
                                            pack.obj.pack.line_of("rows", index, field),
                                            f"rows.{index}.{field}"))
    return problems


def check_inputs(loaded: Sequence[LoadedPack]) -> list[Problem]:
    """Every input's range holds a value, and its default is in it (else the default is
    refused as if the user had typed it, with no file:line)."""
    problems = []
    for pack in (p for p in loaded if p.kind == "inputs"):
        for name, definition in pack.obj.inputs.items():
            low, high = definition.minimum, definition.maximum
            if low is not None and high is not None and low > high:
                field, message = "minimum", f"minimum {low:g} is above maximum {high:g}"
            elif definition.default is None:
                continue
            else:
                try:
                    checked_input(name, definition.default, definition)
                    continue
                except InputError as exc:
                    field, message = "default", str(exc)
            problems.append(Problem(message, pack.path,
                                    pack.obj.pack.line_of("inputs", name, field),
                                    f"inputs.{name}.{field}"))
    return problems


def check_block_types(loaded: Sequence[LoadedPack]) -> list[Problem]:
    """Every block type a format names exists, and a format with tensors covers every
    tensor class (directly, or through its fallbacks)."""
    types = {tid for p in loaded if p.kind == "quantization" for tid in p.obj.types}
    problems: list[Problem] = []
    for pack in loaded:
        if pack.kind != "quantization":
            continue
        for fid, fmt in pack.obj.formats.items():
            for tensor_class, type_id in fmt.tensors.items():
                if type_id not in types:
                    problems.append(Problem(
                        f"unknown block type {type_id!r}{_did_you_mean(type_id, types)}",
                        pack.path,
                        pack.obj.pack.line_of("formats", fid, "tensors", tensor_class),
                        f"formats.{fid}.tensors.{tensor_class}"))
            if fmt.tensors:
                missing = [c for c in TENSOR_CLASSES if type_of(fmt, c) is None
                           and getattr(fmt, f"bpw_{c}") is None]
                if missing:
                    problems.append(Problem(
                        f"tensors name no type for {', '.join(missing)}; add 'default'",
                        pack.path, pack.obj.pack.line_of("formats", fid, "tensors"),
                        f"formats.{fid}.tensors"))
    return problems


def check_scenarios(loaded: Sequence[LoadedPack]) -> list[Problem]:
    """Scenario packs must name packs that exist."""
    known: dict[str, set[str]] = {"model": set(), "hardware": set(), "engine": set(),
                                  "quant": set(), "kv": set(), "workload": set()}
    for pack in loaded:
        if pack.kind in ("model", "hardware", "engine", "workload"):
            known[pack.kind] |= {name_key(pack.id), *map(name_key, getattr(pack.obj, "aliases", ()))}
        elif pack.kind == "quantization":
            for fid, fmt in pack.obj.formats.items():
                known["quant"] |= {name_key(fid), *map(name_key, fmt.aliases)}
        elif pack.kind == "kv_cache":
            for tid, kv in pack.obj.types.items():
                known["kv"] |= {name_key(tid), *map(name_key, kv.aliases)}
    hosts = {name_key(n) for pack in loaded if pack.kind == "hardware"
             and getattr(pack.obj, "backend", None) == "cpu"
             for n in (pack.obj.id, *pack.obj.aliases)}
    problems = []
    for pack in loaded:
        if pack.kind != "scenario":
            continue
        for key in known:
            name = getattr(pack.obj, key)
            if name_key(name) not in known[key]:
                problems.append(Problem(f"no {key} pack is called {name!r}", pack.path,
                                        pack.obj.pack.line_of(key), key))
        host = pack.obj.host
        if host is None and pack.id == "default":  # every scenario falls back to it
            problems.append(Problem("the default scenario must name a host (the cpu hardware "
                                    "pack whose memory holds offloaded weights), which every "
                                    "scenario falls back to", pack.path,
                                    pack.obj.pack.line_of("id"), "host"))
        elif host is not None and name_key(host) not in hosts:
            problems.append(Problem(f"no host (a hardware pack of backend cpu) is called "
                                    f"{host!r}", pack.path, pack.obj.pack.line_of("host"),
                                    "host"))
    return problems


def check_catalogs(loaded: Sequence[LoadedPack]) -> list[Problem]:
    """Catalog messages use the restricted format language (views/message_format.py), and a
    message of another language names only the values the English message is given."""
    catalogs = [p for p in loaded if p.kind == "catalog"]
    english = {name: set(placeholders(text)) for p in catalogs if p.id == "en"
               for name, text in p.obj.messages.items()}
    found = []
    for pack in catalogs:
        for key, text in pack.obj.messages.items():
            allowed = None if pack.id == "en" else english.get(key, set())
            for message in message_problems(text, allowed):
                found.append(Problem(message, pack.path, pack.obj.pack.line_of("messages", key),
                                     f"messages.{key}"))
    return found


#: the names a verdict's label may fill ("Not supported by {engine} on {hardware}")
VERDICT_LABEL_NAMES = ("engine", "hardware", "quant")


def check_verdict_labels(loaded: Sequence[LoadedPack]) -> list[Problem]:
    """A verdict label uses the restricted format language and names only the scenario's
    engine, hardware and weight format."""
    found = []
    for pack in (p for p in loaded if p.kind == "verdicts"):
        for index, rule in enumerate(pack.obj.rules):
            for message in message_problems(rule.label, VERDICT_LABEL_NAMES):
                found.append(Problem(message, pack.path,
                                     pack.obj.pack.line_of("rules", index, "label"),
                                     f"rules.{index}.label"))
    return found


Check = Callable[[Sequence[LoadedPack]], list[Problem]]

#: every check run before the graph is built, in the order their problems are listed
CHECKS: tuple[tuple[str, Check], ...] = (
    ("shared-ids", check_shared_ids),
    ("aliases", check_aliases),
    ("launch-templates", check_launch_templates),
    ("profiles", check_profiles),
    ("inputs", check_inputs),
    ("block-types", check_block_types),
    ("measurements", check_measurements),
    ("checkpoint-formats", check_checkpoint_formats),
    ("families", check_families),
    ("offers", check_offers),
    ("catalogs", check_catalogs),
    ("verdict-labels", check_verdict_labels),
)


def cross_check(loaded: Sequence[LoadedPack]) -> list[Problem]:
    """The problems of every check in ``CHECKS``."""
    problems: list[Problem] = []
    for _, check in CHECKS:
        problems += check(loaded)
    return problems
