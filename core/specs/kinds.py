"""The one table of pack kinds: what each ``kind:`` is called, its schema, its class, the
folder its built-in packs live in, and which other kinds its fields name.

Loading (``structure.py``), schema validation (``files/validation.py``), the registry's index
(``registry/index.py``: ``Registry.by_kind``) and ``fitproof packs list`` read this table. The
JSON schema ``schemas/<schema>.schema.json`` is the one place a pack's fields are declared;
``tests/test_pack_kinds.py`` checks that the schema and the class agree, field by field.
A new kind is a row here, a schema, a class and its packs (docs/architecture.md shows one).
"""

from __future__ import annotations

import attrs

from .architecture import ArchitecturePack
from .catalog import CatalogPack
from .engine import EngineSpec
from .formulas import FormulaPack
from .hardware import HardwareSpec
from .importer import ImporterPack
from .inputs import InputPack
from .kv_cache import KVCachePack
from .listing import ModelListing
from .measurements import MeasurementPack
from .model import ModelSpec
from .profile import ProfilePack
from .provider import Provider
from .quantization import QuantizationPack
from .questions import QuestionPack
from .report import ReportPack
from .scenario import ScenarioPack
from .selections import SelectionPack
from .verdicts import VerdictPack
from .workload import WorkloadSpec


@attrs.frozen
class PackKind:
    kind: str  # the value of the pack's ``kind:`` field
    schema: str  # schemas/<schema>.schema.json
    spec: type  # the frozen class cattrs structures the pack into
    folder: str  # packs/<folder>/ holds the built-in packs of this kind
    links: tuple[str, ...] = ()  # kinds whose ids this kind's fields name (registry/checks.py)


KINDS: tuple[PackKind, ...] = (
    PackKind("model", "model", ModelSpec, "models", ("architecture", "quantization")),
    PackKind("hardware", "hardware", HardwareSpec, "hardware"),
    PackKind("provider", "provider", Provider, "providers", ("hardware",)),
    PackKind("quantization", "quantization", QuantizationPack, "quantizations"),
    PackKind("kv_cache", "kv_cache", KVCachePack, "kv-cache"),
    PackKind("engine", "engine", EngineSpec, "engines", ("formulas", "inputs")),
    PackKind("formulas", "formulas", FormulaPack, "formulas", ("profile",)),
    PackKind("verdicts", "verdicts", VerdictPack, "rules"),
    PackKind("selections", "selections", SelectionPack, "rules"),
    PackKind("inputs", "inputs", InputPack, "scenario"),
    PackKind("scenario", "scenario", ScenarioPack, "scenario",
             ("model", "hardware", "quantization", "kv_cache", "engine", "workload")),
    PackKind("workload", "workload", WorkloadSpec, "workloads"),
    PackKind("catalog", "catalog", CatalogPack, "catalogs"),
    PackKind("report", "report", ReportPack, "reports"),
    PackKind("architecture", "architecture", ArchitecturePack, "architectures"),
    PackKind("importer", "importer", ImporterPack, "importers"),
    PackKind("profile", "profile", ProfilePack, "profiles", ("profile",)),
    PackKind("measurements", "measurements", MeasurementPack, "measurements",
             ("model", "hardware", "quantization", "kv_cache", "engine")),
    PackKind("questions", "questions", QuestionPack, "questions"),
    PackKind("model-listing", "model-listing", ModelListing, "listings"),
)

PACK_KINDS: tuple[str, ...] = tuple(k.kind for k in KINDS)
PACK_CLASSES: dict[str, type] = {k.kind: k.spec for k in KINDS}
