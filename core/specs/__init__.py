"""Typed, frozen views of validated packs, built with cattrs: one module per pack kind.

Every pack class carries ``pack`` (a :class:`PackFile`): the file it was read from and the
line of every field, so derivations can cite ``file:line`` for each value. The table of
kinds is :mod:`fitproof.specs.kinds`.
"""

from __future__ import annotations

from .architecture import ArchitecturePack
from .catalog import CatalogPack
from .common import NO_PACK, Figure, Location, PackFile, Sources
from .engine import EngineSpec, HeldOutAccuracy, HeldOutScore, LaunchPart, LaunchTemplate
from .formulas import FormulaDef, FormulaPack
from .hardware import HardwareSpec
from .importer import CheckpointFormatRule, FamilyRule, ImporterPack
from .inputs import InputDef, InputPack
from .kinds import KINDS, PACK_CLASSES, PACK_KINDS, PackKind
from .kv_cache import KVCachePack, KVCacheType
from .listing import ListedModel, ModelListing
from .measurements import MeasurementPack, MeasurementRow
from .model import ModelSpec
from .profile import CalibratedConstants, Calibration, CalibrationScore, ProfilePack
from .provider import CloudOffer, Listing, Provider
from .quantization import (ROW_FALLBACK_CLASSES, TENSOR_CLASSES, BlockType, QuantFormat,
                           QuantizationPack)
from .report import KVTuningSpec, RecommendationSlot, ReportPack, SavingSpec
from .scenario import ScenarioPack
from .selections import SelectionDef, SelectionPack
from .structure import converter, structure_pack
from .verdicts import ScenarioCheck, VerdictPack, VerdictRule
from .workload import WorkloadSpec

__all__ = [
    "KINDS", "NO_PACK", "PACK_CLASSES", "PACK_KINDS", "ROW_FALLBACK_CLASSES", "TENSOR_CLASSES",
    "ArchitecturePack", "BlockType", "CatalogPack", "CheckpointFormatRule", "CloudOffer",
    "EngineSpec", "FamilyRule", "Figure", "FormulaDef", "FormulaPack", "HardwareSpec",
    "HeldOutAccuracy", "HeldOutScore", "ImporterPack",
    "InputDef", "InputPack", "Location", "KVCachePack", "KVCacheType", "KVTuningSpec", "LaunchPart",
    "LaunchTemplate", "ListedModel", "Listing", "MeasurementPack", "ModelListing", "MeasurementRow", "ModelSpec", "PackFile",
    "PackKind", "CalibratedConstants", "Calibration", "CalibrationScore", "ProfilePack", "Provider", "QuantFormat", "QuantizationPack",
    "RecommendationSlot", "ReportPack", "SavingSpec", "ScenarioPack", "SelectionDef",
    "ScenarioCheck", "SelectionPack", "Sources", "VerdictPack", "VerdictRule", "WorkloadSpec", "converter",
    "structure_pack",
]
