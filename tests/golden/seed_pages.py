"""Parse the saved "LLM VRAM calculator" seed pages into display-exact values.

The four files in ``tests/golden/seeds/`` are text captures of the web pages that
fitproof must reproduce number for number.  Golden tests read their expected values
from those files through this module, so expectations cannot drift from the source.

Design rules:

* Every number is a :class:`Shown`: the float value, the text exactly as printed
  (prefixes such as ``~``, ``$`` and ``+`` included, units excluded) and the number
  of decimals printed.  ``Shown.matches(x)`` tells whether a computed ``x`` displays
  as that number.
* Parsing is language-aware (``en``/``de``/``es``).  All labels and sentence shapes
  are spelled out in :data:`_LANG`; nothing is guessed.
* Separators are read by context.  ``,`` is a thousands separator and ``.`` a decimal
  point everywhere (``$1,999``, ``8,192``, ``21.28 GiB``), except for the token count
  in the German/Spanish FAQ sentence (``32.768 Tokens``), where ``.`` groups thousands.
* Parsing fails loudly: a missing section, an unknown verdict text or a sentence
  whose shape changed raises :class:`SeedPageError` naming the file and the line.

Only the standard library is used.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path
from typing import Literal

__all__ = [
    "SEEDS_DIR",
    "VERDICT_TEXTS",
    "CompatRow",
    "CompatTable",
    "Configurator",
    "Faq",
    "FineTuneBlock",
    "Headline",
    "Intro",
    "KvTuning",
    "LaunchCommands",
    "MatrixRow",
    "MemoryBreakdown",
    "OtherGpu",
    "PageMeta",
    "ProviderRow",
    "QuantMatrix",
    "QuickVerdict",
    "RecommendedSlot",
    "SeedPage",
    "SeedPageError",
    "Shown",
    "Simulator",
    "Tco",
    "Verdict",
    "load_seed_pages",
    "parse_seed_page",
    "parse_seed_text",
]

#: Directory holding the seed pages (``<stem>.txt``).
SEEDS_DIR: Path = Path(__file__).resolve().parent / "seeds"

Language = Literal["en", "de", "es"]
VerdictKind = Literal["fits", "tight", "exceeds"]
Layout = Literal["model", "model_on_hardware"]

#: Every verdict text found on the seed pages -> (language, normalised kind).
#: The German and Spanish "tight" texts do not occur on any seed page, so they are
#: deliberately absent: a page showing one fails to parse instead of being guessed.
VERDICT_TEXTS: dict[str, tuple[Language, VerdictKind]] = {
    "Fits with Safe Headroom": ("en", "fits"),
    "Tight Fit (<8% Headroom)": ("en", "tight"),
    "Exceeds Available GPU Memory": ("en", "exceeds"),
    "Passt mit sicherer Reserve": ("de", "fits"),
    "Überschreitet verfügbaren GPU-Speicher": ("de", "exceeds"),
    "Cabe con Margen Seguro": ("es", "fits"),
    "Supera la Memoria GPU Disponible": ("es", "exceeds"),
}


class SeedPageError(ValueError):
    """A seed page does not have the shape this parser expects (file and line named)."""


# --------------------------------------------------------------------------- numbers

_PREFIX = r"[~+\-\u2212]?\$?"
_NUM = _PREFIX + r"\d+(?:,\d{3})*(?:\.\d+)?"
_SHOWN_COMMA = re.compile(r"(?P<prefix>" + _PREFIX + r")(?P<int>\d+(?:,\d{3})*)(?:\.(?P<frac>\d+))?")
_SHOWN_DOT = re.compile(r"(?P<prefix>" + _PREFIX + r")(?P<int>\d{1,3}(?:\.\d{3})+|\d+)")


@dataclass(frozen=True)
class Shown:
    """A number exactly as a page displays it.

    ``value`` is the number, ``text`` the printed token including any ``~``, ``$``,
    ``+`` or ``-`` prefix and thousands separators but without the unit, and
    ``decimals`` the count of printed fraction digits (0 for ``~98``, ``$1,999`` and
    for the German ``32.768`` token count; 2 for ``21.28``).  The pages drop trailing
    zeros on GiB and tok/s values, so ``20.5`` has ``decimals == 1``.
    """

    value: float
    text: str
    decimals: int

    @classmethod
    def parse(cls, text: str, *, thousands: Literal[",", "."] = ",") -> Shown:
        """Parse one printed number.

        ``thousands=","`` (the default) reads ``,`` as a thousands separator and ``.``
        as the decimal point.  ``thousands="."`` reads ``.`` as a thousands separator
        and allows no fraction (the German/Spanish ``32.768 Tokens``).
        Raises ``ValueError`` for anything else.
        """
        pattern = _SHOWN_DOT if thousands == "." else _SHOWN_COMMA
        m = pattern.fullmatch(text)
        if m is None:
            raise ValueError(f"not a displayed number: {text!r}")
        negative = m.group("prefix").lstrip("~").startswith(("-", "\u2212"))
        digits = m.group("int").replace(thousands, "")
        frac = m.groupdict().get("frac") or ""
        magnitude = Decimal(digits + ("." + frac if frac else ""))
        value = float(-magnitude if negative else magnitude)
        return cls(value=value, text=text, decimals=len(frac))

    def _quantum(self) -> Decimal:
        return Decimal(1).scaleb(-self.decimals)

    def matches(self, x: float) -> bool:
        """True when ``x`` rounded half away from zero to ``decimals`` equals ``value``.

        Rounds ``Decimal(repr(float(x)))``, i.e. the shortest decimal form of ``x``.
        Note: the pages round the exact binary value instead (JS ``toFixed``), so
        e.g. ``141 * 0.95`` (repr ``133.95``, binary ``133.9499…``) is shown as
        ``133.9`` but does not ``match`` it; see :meth:`matches_binary`.
        """
        xf = float(x)
        if not math.isfinite(xf):
            return False
        rounded = Decimal(repr(xf)).quantize(self._quantum(), rounding=ROUND_HALF_UP)
        return rounded == Decimal(repr(self.value))

    def matches_binary(self, x: float) -> bool:
        """Like :meth:`matches`, but rounds the exact binary value of ``x``.

        This is how ``Number.prototype.toFixed`` on the pages behaves.
        """
        xf = float(x)
        if not math.isfinite(xf):
            return False
        rounded = Decimal(xf).quantize(self._quantum(), rounding=ROUND_HALF_UP)
        return rounded == Decimal(repr(self.value))

    def __float__(self) -> float:
        return self.value


# --------------------------------------------------------------------------- records


@dataclass(frozen=True)
class Verdict:
    """A compatibility verdict: the text as printed and its normalised kind."""

    text: str
    kind: VerdictKind

    @property
    def english(self) -> str:
        """The English page text for the same kind (for cross-checks)."""
        for text, (lang, kind) in VERDICT_TEXTS.items():
            if lang == "en" and kind == self.kind:
                return text
        raise KeyError(self.kind)  # pragma: no cover - every kind has an English text


@dataclass(frozen=True)
class PageMeta:
    """What the page says about itself, its model and its target hardware.

    ``target_bandwidth_gbs`` is ``None`` on the English model pages (the headline card
    does not print it; the compatibility table row does), ``hf_repo``/``gguf_repo`` are
    ``None`` on the German/Spanish pages (only the launch commands name them),
    ``hours_per_day``/``checked_date`` are ``None`` where the page does not print them.
    ``context_tokens`` is read from the configurator (``8,192``) where present, else
    from the llama.cpp ``--ctx-size`` argument.
    """

    language: Language
    layout: Layout
    title: str
    model: str
    total_params_b: Shown
    active_params_b: Shown
    architecture: str
    license: str
    hf_repo: str | None
    gguf_repo: str | None
    target_hardware: str
    target_physical_gb: Shown
    target_bandwidth_gbs: Shown | None
    quant: str
    weight_bits: Shown
    context_tokens: Shown
    context_label: str
    hours_per_day: Shown | None
    checked_date: str | None


@dataclass(frozen=True)
class Intro:
    """The first sentence under the title."""

    model: str
    total_params_b: Shown
    active_params_b: Shown
    architecture: str
    weights_gib: Shown
    weight_bits: Shown
    quant: str
    required_8k_gib: Shown
    required_32k_gib: Shown
    target_hardware: str | None
    decode_tok_s: Shown | None
    hf_repo: str | None
    gguf_repo: str | None
    line: int


@dataclass(frozen=True)
class Configurator:
    """The interactive sizing panel (German/Spanish pages)."""

    total_params_b: Shown
    active_params_b: Shown
    quant: str
    weights_gib: Shown
    context_tokens: Shown
    context_label: str
    physical_gb: Shown
    bandwidth_gbs: Shown
    offload_pct: Shown
    line: int


@dataclass(frozen=True)
class Headline:
    """The headline card (verdict and the six metric tiles)."""

    verdict: Verdict
    method_label: str
    required_gib: Shown
    required_gb: Shown
    usable_gib: Shown
    physical_gb: Shown
    headroom_label: str
    headroom_gib: Shown
    utilization_pct: Shown
    decode_tok_s: Shown
    active_params_b: Shown
    prefill_tok_s: Shown
    ttft_4k_ms: Shown
    cost_per_1m_usd: Shown
    architecture: str
    license: str
    line: int


@dataclass(frozen=True)
class MemoryBreakdown:
    """The "memory breakdown" bar (German/Spanish pages).

    ``capacity`` is the physical size exactly as printed; the pages label it ``GiB``
    although it is the physical GB figure (``/ 64 GiB (33%)``), see ``capacity_unit``.
    """

    total_gib: Shown
    total_gb: Shown
    capacity: Shown
    capacity_unit: str
    utilization_pct: Shown
    weights_gib: Shown
    kv_state_gib: Shown
    buffers_gib: Shown
    offload_gib: Shown
    line: int


@dataclass(frozen=True)
class RecommendedSlot:
    """One of the four "recommended hardware" tiles.

    ``slot`` is ``best_single``, ``best_value``, ``unified`` or ``cloud``.  ``name`` is
    the name line as printed (``Arc Pro B60 24GB (24GB)``, ``2x A100 80GB SXM``; the
    provider ``Vast.ai`` for the cloud tile).  ``gpu_count`` is the ``2x``/``1x``
    multiplier where printed, ``memory_gb`` the ``(24GB)`` suffix of the name or the
    ``160GB`` detail.  The cloud tile has ``hourly_usd`` and ``instance`` instead of a
    price.  ``detail`` is the second line verbatim.
    """

    slot: Literal["best_single", "best_value", "unified", "cloud"]
    label: str
    name: str
    detail: str
    price_usd: Shown | None
    hourly_usd: Shown | None
    instance: str | None
    gpu_count: Shown | None
    memory_gb: Shown | None
    line: int


@dataclass(frozen=True)
class LaunchCommands:
    """Launch commands, whitespace collapsed to single spaces (``\\`` kept)."""

    llama_cpp: str
    vllm: str

    @staticmethod
    def argv(command: str) -> tuple[str, ...]:
        """Split a normalised command into arguments, dropping ``\\`` continuations."""
        return tuple(part for part in command.split(" ") if part != "\\")


@dataclass(frozen=True)
class Simulator:
    """The token-speed simulator caption and its allocation line."""

    ttft_ms: Shown
    decode_tok_s: Shown
    model: str
    required_gib: Shown
    line: int


@dataclass(frozen=True)
class ProviderRow:
    """One cloud provider row of the TCO table.

    ``provider_text`` is verbatim (``Vultr ($300 Free Credit*)`` on EN,
    ``*Vultr ($300 Free Credit)**`` on DE/ES); ``provider`` has the ``*`` marks removed.
    """

    provider_text: str
    provider: str
    instance: str
    vram_gb: Shown
    hourly_usd: Shown
    monthly_usd: Shown
    billing: str
    deploy_text: str
    line: int


@dataclass(frozen=True)
class Tco:
    """Rent-vs-buy section: break-even, local power and the provider table."""

    breakeven_months: Shown
    local_power_usd_month: Shown
    providers: tuple[ProviderRow, ...]
    line: int


@dataclass(frozen=True)
class FineTuneBlock:
    """One fine-tuning block (``mode`` is ``QLoRA``, ``LoRA`` or ``Full``)."""

    mode: Literal["QLoRA", "LoRA", "Full"]
    label: str
    verdict: Verdict
    total_gib: Shown
    weights_gib: Shown
    grads_optimizer_gib: Shown
    activations_gib: Shown
    recommended_gpu: str
    recommended_gpu_count: Shown | None
    recommended_memory_gb: Shown
    line: int


@dataclass(frozen=True)
class QuickVerdict:
    """The "quick hardware verdict" sentence."""

    hardware: str
    physical_gb: Shown
    usable_gib: Shown
    model: str
    weight_bits: Shown
    quant: str
    context_label: str
    required_gib: Shown
    headroom_gib: Shown
    decode_tok_s: Shown
    line: int


@dataclass(frozen=True)
class KvTuning:
    """The "KV cache & runtime tuning" sentence."""

    model: str
    architecture: str
    total_params_b: Shown
    active_params_b: Shown
    kv_8k_gib: Shown
    kv_32k_gib: Shown
    q8_saving_32k_gib: Shown
    required_32k_q8kv_gib: Shown
    line: int


@dataclass(frozen=True)
class Faq:
    """The two FAQ answers (German/Spanish pages)."""

    question_fit: str
    question_32k: str
    hardware: str
    model: str
    quant: str
    context_label: str
    required_8k_gib: Shown
    weights_gib: Shown
    kv_8k_gib: Shown
    buffers_gib: Shown
    usable_gib: Shown
    decode_tok_s: Shown
    context_32k_tokens: Shown
    kv_32k_gib: Shown
    required_32k_gib: Shown
    required_32k_gb: Shown
    line: int


@dataclass(frozen=True)
class CompatRow:
    """One row of the 49-GPU compatibility table (English pages)."""

    hardware: str
    physical_gb: Shown
    usable_gib: Shown
    bandwidth_gbs: Shown
    total_8k_gib: Shown
    total_32k_gib: Shown
    decode_tok_s: Shown
    verdict: Verdict
    line: int


@dataclass(frozen=True)
class CompatTable:
    """The compatibility table with its heading (``stated_count`` from "× 49 GPUs")."""

    model: str
    stated_count: Shown
    weight_bits: Shown
    quant: str
    rows: tuple[CompatRow, ...]
    line: int


@dataclass(frozen=True)
class MatrixRow:
    """One row of the quantization matrix (German/Spanish pages).

    ``label`` is the first cell verbatim, ``quant`` its trailing ``(…)`` id.
    """

    quant: str
    label: str
    weights_gib: Shown
    kv_gib: Shown
    total_gib: Shown
    total_gb: Shown
    decode_tok_s: Shown
    verdict: Verdict
    recommended_gpu: str
    data_source: str
    line: int


@dataclass(frozen=True)
class QuantMatrix:
    """The quantization matrix with its heading and compatibility column target."""

    model: str
    context_label: str
    target_hardware: str
    rows: tuple[MatrixRow, ...]
    line: int


@dataclass(frozen=True)
class OtherGpu:
    """An entry of "this model on other GPUs": text verbatim, name and ``(NNGB)``."""

    text: str
    name: str
    memory_gb: Shown


@dataclass(frozen=True)
class SeedPage:
    """Everything one seed page states.

    Sections a layout does not have are ``None``: the English model pages have the
    compatibility table but no configurator, memory breakdown, FAQ, quantization
    matrix or link lists; the German/Spanish model-on-hardware pages the reverse.
    """

    stem: str
    path: Path
    meta: PageMeta
    intro: Intro
    configurator: Configurator | None
    headline: Headline
    breakdown: MemoryBreakdown | None
    recommended: tuple[RecommendedSlot, ...]
    commands: LaunchCommands
    simulator: Simulator
    tco: Tco
    finetune: tuple[FineTuneBlock, ...]
    quick_verdict: QuickVerdict
    kv_tuning: KvTuning
    faq: Faq | None
    compat_table: CompatTable | None
    quant_matrix: QuantMatrix | None
    other_gpus: tuple[OtherGpu, ...] | None
    other_models: tuple[str, ...] | None

    def slot(self, slot: str) -> RecommendedSlot:
        """The recommended-hardware tile called ``slot`` (``best_single`` etc.)."""
        for item in self.recommended:
            if item.slot == slot:
                return item
        raise KeyError(slot)

    def finetune_block(self, mode: str) -> FineTuneBlock:
        """The fine-tuning block for ``mode`` (``QLoRA``, ``LoRA`` or ``Full``)."""
        for block in self.finetune:
            if block.mode == mode:
                return block
        raise KeyError(mode)


# --------------------------------------------------------------------------- language

_SLOTS: tuple[Literal["best_single", "best_value", "unified", "cloud"], ...] = (
    "best_single",
    "best_value",
    "unified",
    "cloud",
)

_LANG: dict[str, dict[str, object]] = {
    "en": {
        "title": r"^(?P<model>.+) VRAM Requirements, KV Cache & Best GPUs$",
        "intro": (
            r"^(?P<model>.+?) \((?P<total>@N@)B total, (?P<active>@N@)B active, (?P<arch>.+)\) "
            r"uses (?P<w>@N@) GiB for (?P<bits>\d+)-bit weights \((?P<quant>[^)]+)\), "
            r"requiring (?P<r8>@N@) GiB at 8K context and (?P<r32>@N@) GiB at 32K\."
            r"(?: · Hugging Face: (?P<hf>\S+) ↗)?(?: · GGUF: (?P<gguf>\S+) ↗)?$"
        ),
        "required": "Required GPU Memory",
        "required_gb": r"^(?P<v>@N@) GB \(decimal\)$",
        "usable": "Usable Hardware Memory",
        "physical": r"^(?P<v>@N@) GB \(physical\)$",
        "utilization": r"^(?P<v>\d+)% utilization$",
        "decode": "Est. Decode Throughput",
        "active": r"^(?P<v>@N@)B active params$",
        "prefill": "Est. Prefill Throughput",
        "ttft": r"^4K Prompt TTFT: (?P<v>@N@) ms$",
        "cost": "Est. Cost / 1M Tokens",
        "rec_heading": "Recommended Hardware for Current Configuration",
        "slots": ("Best Single GPU", "Best Value / Used GPU", "Apple Unified Memory", "Cloud From"),
        "per_hour": "hr",
        "launch_heading": "Production Launch Commands",
        "tco_heading": "Cloud GPU Comparison & Rent-vs-Buy TCO",
        "breakeven": "Purchase break-even",
        "breakeven_value": r"^(?P<v>@N@) months$",
        "power": r"^Est\. local power: (?P<v>@N@) / mo$",
        "per_month": "mo",
        "provider_header": "Provider",
        "ft_heading": r"^Fine-Tuning VRAM Requirements \(QLoRA / LoRA / Full\) — (?P<model>.+)$",
        "ft_modes": (("QLoRA", "QLoRA (4b)"), ("LoRA", "LoRA (16b)"), ("Full", "Full BF16")),
        "ft_parts": ("Model Weights", "Gradients + Optimizer", "Act"),
        "ft_rec": "Recommended GPU: ",
        "qv_heading": "Quick Hardware Verdict",
        "qv": (
            r"^(?P<hw>.+) \((?P<phys>@N@)GB physical, (?P<usable>@N@) GiB usable\) runs "
            r"(?P<bits>\d+)-bit \((?P<quant>[^)]+)\) (?P<model>.+) at (?P<ctx>\d+K) context using "
            r"(?P<req>@N@) GiB with (?P<head>@N@) GiB of safe headroom "
            r"\((?P<dec>@N@) tok/s single-stream decode\)\.$"
        ),
        "kv_heading": "KV Cache & Runtime Tuning",
        "kv": (
            r"^(?P<model>.+?) uses (?P<arch>.+) \((?P<total>@N@)B total, (?P<active>@N@)B active per token\)\. "
            r"Moving from 8K to 32K context expands FP16 KV cache from (?P<kv8>@N@) GiB to (?P<kv32>@N@) GiB; "
            r"enabling 8-bit KV cache \([^()]+\) saves (?P<save>@N@) GiB at 32K "
            r"\(reducing total VRAM to (?P<tot>@N@) GiB\)\.$"
        ),
        "compat_heading": r"^(?P<model>.+) × (?P<n>\d+) GPUs \((?P<bits>\d+)-bit (?P<quant>[^)]+)\)$",
    },
    "de": {
        "title": r"^(?P<model>.+?) auf (?P<hw>.+) \((?P<gb>@N@)GB\) — VRAM, KV-Cache & Token/s$",
        "intro": (
            r"^(?P<model>.+?) \((?P<total>@N@)B gesamt, (?P<active>@N@)B aktiv, (?P<arch>.+)\) "
            r"benötigt (?P<w>@N@) GiB für (?P<bits>\d+)-Bit-Gewichte \((?P<quant>[^)]+)\), "
            r"(?P<r8>@N@) GiB gesamt bei 8K Kontext und (?P<r32>@N@) GiB bei 32K "
            r"auf (?P<hw>.+) \((?P<dec>@N@) tok/s\)\.$"
        ),
        "cfg_params": "Open-Weight-Modell",
        "cfg_weights": "Gewichte & Quantisierung",
        "cfg_context": "Kontextfenster",
        "cfg_hardware": "Ziel-Hardware",
        "cfg_offload": "System-RAM-Offload (CPU)",
        "breakdown": "Speicheraufteilung im Detail",
        "breakdown_parts": (
            "Modellgewichte",
            "KV-Cache & Zustand",
            "Engine- & Aktivierungspuffer",
            "System-RAM-Offload (CPU)",
        ),
        "required": "Benötigter GPU-Speicher",
        "required_gb": r"^(?P<v>@N@) GB \(dezimal\)$",
        "usable": "Nutzbarer Hardware-Speicher",
        "physical": r"^(?P<v>@N@) GB \(physisch\)$",
        "utilization": r"^(?P<v>\d+)% Auslastung$",
        "decode": "Geschätzter Decode-Durchsatz",
        "active": r"^(?P<v>@N@)B aktive Parameter$",
        "prefill": "Geschätzter Prefill-Durchsatz",
        "ttft": r"^4K-Prompt TTFT: (?P<v>@N@) ms$",
        "cost": "Kosten / 1 Mio. Tokens",
        "rec_heading": "Empfohlene Hardware für diese Konfiguration",
        "slots": ("Beste Einzel-GPU", "Preis-Leistungs- / Gebraucht-GPU", "Apple Unified Memory", "Cloud ab"),
        "per_hour": "Std.",
        "launch_heading": "Produktionsreife Startbefehle",
        "tco_heading": "Cloud-GPU-Preisvergleich & Mieten-vs.-Kaufen-TCO",
        "checked": r"^Geprüft am: (?P<v>\d{4}-\d{2}-\d{2})$",
        "hours": r"^Aktive Nutzung \(Stunden / Tag\)(?P<v>@N@) Std\. / Tag$",
        "breakeven": "Kauf-Amortisation",
        "breakeven_value": r"^(?P<v>@N@) Monate$",
        "power": r"^Geschätzte Stromkosten: (?P<v>@N@) / Monat$",
        "per_month": "Monat",
        "provider_header": "Anbieter",
        "ft_heading": r"^Fine-Tuning VRAM-Bedarf \(QLoRA / LoRA / Voll\) — (?P<model>.+)$",
        "ft_modes": (("QLoRA", "QLoRA (4b)"), ("LoRA", "LoRA (16b)"), ("Full", "Voll-FT")),
        "ft_parts": ("Modellgewichte", "Gradienten + Optimizer", "Act"),
        "ft_rec": "Empfohlene GPU: ",
        "qv_heading": "Schnelles Hardware-Fazit",
        "qv": (
            r"^(?:Die |Der |Das )?(?P<hw>.+) \((?P<phys>@N@)GB physisch, (?P<usable>@N@) GiB nutzbar\) "
            r"führt (?P<model>.+) in (?P<bits>\d+)-Bit \((?P<quant>[^)]+)\) bei (?P<ctx>\d+K) Kontext "
            r"mit (?P<req>@N@) GiB und (?P<head>@N@) GiB Reserve stabil aus \((?P<dec>@N@) tok/s\)\.$"
        ),
        "kv_heading": "KV-Cache- & Engine-Tuning",
        "kv": (
            r"^(?P<model>.+?) nutzt (?P<arch>.+) \((?P<total>@N@)B gesamt, (?P<active>@N@)B aktiv pro Token\)\. "
            r"Zwischen 8K und 32K Kontext steigt der FP16-KV-Cache von (?P<kv8>@N@) GiB auf (?P<kv32>@N@) GiB; "
            r"mit FP8/Q8_0-KV-Quantisierung sparen Sie bei 32K (?P<save>@N@) GiB "
            r"\(gesamt (?P<tot>@N@) GiB\)\.$"
        ),
        "matrix_heading": r"^Quantisierungs-, Speicher- & Durchsatzmatrix — (?P<model>.+) @ (?P<ctx>\d+K)$",
        "matrix_header": "Quantisierungsformat",
        "matrix_compat": r"^Kompatibilität \((?P<hw>.+)\)$",
        "faq_heading": "Technische Spezifikationen & Häufige Fragen (FAQ)",
        "faq_q1": r"^Kann (?:die |der |das )?(?P<hw>.+) \((?P<gb>@N@)GB\) (?P<model>.+) ausführen\?$",
        "faq_a1": (
            r"^In (?P<bits>\d+)-Bit \((?P<quant>[^)]+)\) bei (?P<ctx>\d+K) Kontext benötigt (?P<model>.+?) "
            r"insgesamt (?P<req>@N@) GiB VRAM \((?P<w>@N@) GiB Gewichte \+ (?P<kv>@N@) GiB KV-Cache \+ "
            r"(?P<buf>@N@) GiB Puffer\) bei (?P<usable>@N@) GiB nutzbarem Speicher auf "
            r"(?:der |dem |den )?(?P<hw>.+) \((?P<dec>@N@) tok/s Decode\)\.$"
        ),
        "faq_q2": r"^Wie viel VRAM benötigt (?P<model>.+) bei 32K Kontextlänge\?$",
        "faq_a2": (
            r"^Bei (?P<tokens>[\d.]+) Tokens Kontextfenster belegt der KV-Cache (?P<kv32>@N@) GiB, "
            r"womit der gesamte (?P<bits>\d+)-Bit-VRAM-Bedarf auf (?P<r32>@N@) GiB "
            r"\((?P<gb32>@N@) GB dezimal\) steigt\.$"
        ),
        "other_gpus": "Dieses Modell auf anderen GPUs testen",
        "other_models": "Weitere Modelle auf dieser Hardware testen",
    },
    "es": {
        "title": r"^(?P<model>.+?) en (?P<hw>.+) \((?P<gb>@N@)GB\) — VRAM, KV Cache y Velocidad$",
        "intro": (
            r"^(?P<model>.+?) \((?P<total>@N@)B total, (?P<active>@N@)B activos, (?P<arch>.+)\) "
            r"requiere (?P<w>@N@) GiB para pesos en (?P<bits>\d+)-bit \((?P<quant>[^)]+)\), "
            r"(?P<r8>@N@) GiB totales a 8K de contexto y (?P<r32>@N@) GiB a 32K "
            r"en (?P<hw>.+) \((?P<dec>@N@) tok/s\)\.$"
        ),
        "cfg_params": "Modelo de Pesos Abiertos",
        "cfg_weights": "Pesos y Cuantización",
        "cfg_context": "Ventana de Contexto",
        "cfg_hardware": "Hardware Objetivo",
        "cfg_offload": "Offload a RAM del Sistema (CPU)",
        "breakdown": "Desglose de Asignación de Memoria",
        "breakdown_parts": (
            "Pesos del Modelo",
            "Caché KV y Estado",
            "Motor y Buffers de Activación",
            "RAM de Sistema (CPU)",
        ),
        "required": "Memoria GPU Requerida",
        "required_gb": r"^(?P<v>@N@) GB \(decimal\)$",
        "usable": "Memoria Hardware Utilizable",
        "physical": r"^(?P<v>@N@) GB \(física\)$",
        "utilization": r"^(?P<v>\d+)% utilización$",
        "decode": "Velocidad Decode Est.",
        "active": r"^(?P<v>@N@)B parámetros activos$",
        "prefill": "Velocidad Prefill Est.",
        "ttft": r"^TTFT Prompt 4K: (?P<v>@N@) ms$",
        "cost": "Costo Est. / 1M Tokens",
        "rec_heading": "Hardware Recomendado para Esta Configuración",
        "slots": ("Mejor GPU Individual", "Mejor Calidad-Precio / Usada", "Memoria Unificada Apple", "Cloud Desde"),
        "per_hour": "h",
        "launch_heading": "Comandos de Lanzamiento para Producción",
        "tco_heading": "Comparativa Cloud GPU y TCO Alquilar vs. Comprar",
        "checked": r"^Verificado: (?P<v>\d{4}-\d{2}-\d{2})$",
        "hours": r"^Uso activo \(horas / día\)(?P<v>@N@) h / día$",
        "breakeven": "Amortización de compra",
        "breakeven_value": r"^(?P<v>@N@) meses$",
        "power": r"^Electricidad local est\.: (?P<v>@N@) / mes$",
        "per_month": "mes",
        "provider_header": "Proveedor",
        "ft_heading": r"^Requisitos de VRAM para Fine-Tuning \(QLoRA / LoRA / Completo\) — (?P<model>.+)$",
        "ft_modes": (("QLoRA", "QLoRA (4b)"), ("LoRA", "LoRA (16b)"), ("Full", "FT Completo")),
        "ft_parts": ("Pesos del Modelo", "Gradientes + Optimizador", "Act"),
        "ft_rec": "GPU Recomendada: ",
        "qv_heading": "Veredicto Rápido de Hardware",
        "qv": (
            r"^(?P<hw>.+) \((?P<phys>@N@)GB físicos, (?P<usable>@N@) GiB utilizables\) ejecuta "
            r"(?P<model>.+) en (?P<bits>\d+) bits \((?P<quant>[^)]+)\) con (?P<req>@N@) GiB a "
            r"(?P<ctx>\d+K) de contexto y un margen libre de (?P<head>@N@) GiB \((?P<dec>@N@) tok/s\)\.$"
        ),
        "kv_heading": "Ajuste de KV Cache y Motor",
        "kv": (
            r"^(?P<model>.+?) utiliza topología (?P<arch>.+) \((?P<total>@N@)B totales, "
            r"(?P<active>@N@)B activos por token\)\. Al pasar de 8K a 32K tokens, el caché KV FP16 pasa de "
            r"(?P<kv8>@N@) GiB a (?P<kv32>@N@) GiB; activar caché KV FP8/Q8_0 ahorra (?P<save>@N@) GiB "
            r"en 32K \(total (?P<tot>@N@) GiB\)\.$"
        ),
        "matrix_heading": r"^Matriz de Cuantización, Memoria y Velocidad — (?P<model>.+) @ (?P<ctx>\d+K)$",
        "matrix_header": "Formato de Cuantización",
        "matrix_compat": r"^Compatibilidad \((?P<hw>.+)\)$",
        "faq_heading": "Especificaciones Técnicas y Preguntas Frecuentes",
        "faq_q1": r"^¿Puede (?P<hw>.+) \((?P<gb>@N@)GB\) ejecutar (?P<model>.+)\?$",
        "faq_a1": (
            r"^En cuantización de (?P<bits>\d+) bits \((?P<quant>[^)]+)\) con contexto (?P<ctx>\d+K), "
            r"(?P<model>.+?) requiere (?P<req>@N@) GiB de VRAM total \((?P<w>@N@) GiB pesos \+ "
            r"(?P<kv>@N@) GiB caché KV \+ (?P<buf>@N@) GiB buffers\) frente a (?P<usable>@N@) GiB "
            r"utilizables en (?P<hw>.+), alcanzando (?P<dec>@N@) tok/s\.$"
        ),
        "faq_q2": r"^¿Cuánta VRAM necesita (?P<model>.+) con contexto de 32K\?$",
        "faq_a2": (
            r"^Con una ventana de contexto de (?P<tokens>[\d.]+) tokens, el caché KV ocupa (?P<kv32>@N@) GiB "
            r"y la memoria GPU total requerida en (?P<bits>\d+) bits asciende a (?P<r32>@N@) GiB "
            r"\((?P<gb32>@N@) GB decimales\)\.$"
        ),
        "other_gpus": "Evaluar Este Modelo en Otras GPUs",
        "other_models": "Evaluar Otros Modelos en Este Hardware",
    },
}

#: First words of model families on the "other models" lists.  A new list entry starts
#: at one of these words (unless it follows "Distill", as in "DeepSeek R1 Distill Llama 70B").
_MODEL_FAMILY = re.compile(
    r"^(?:Qwen\d|QwQ$|DeepSeek$|gpt-oss-|Gemma$|GLM-|Kimi$|Kimi-|MiniMax$|Step-|ERNIE$|Hunyuan$"
    r"|MiniCPM|Llama$|Mistral$|Mixtral$|Devstral$|Nemotron$|Cohere$|Phi-|Liquid$)"
)


def _rx(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern.replace("@N@", _NUM))


# --------------------------------------------------------------------------- parser


@dataclass(frozen=True)
class _Line:
    no: int
    text: str


class _Parser:
    """Stateful helper: the non-blank lines of one page plus the lookups on them."""

    def __init__(self, text: str, name: str) -> None:
        self.name = name
        self.lines: list[_Line] = [
            _Line(no, raw.strip()) for no, raw in enumerate(text.splitlines(), start=1) if raw.strip()
        ]
        if not self.lines:
            raise SeedPageError(f"{name}: empty page")
        self.lang: Language = self._detect_language()
        self.t: dict[str, object] = _LANG[self.lang]

    # -- error and lookup helpers -------------------------------------------------

    def fail(self, message: str, at: int | None = None) -> SeedPageError:
        """An error naming the file and the line index ``at`` (or the last line)."""
        line = self.lines[at] if at is not None and 0 <= at < len(self.lines) else self.lines[-1]
        return SeedPageError(f"{self.name}:{line.no}: {message} (line: {line.text[:120]!r})")

    def s(self, key: str) -> str:
        value = self.t[key]
        assert isinstance(value, str)
        return value

    def find(self, text: str, start: int = 0, *, prefix: bool = False) -> int:
        """Index of the first line equal to (or starting with) ``text`` at/after ``start``."""
        for i in range(start, len(self.lines)):
            line = self.lines[i].text
            if line == text or (prefix and line.startswith(text)):
                return i
        raise self.fail(f"missing section {text!r} after this line", max(start - 1, 0))

    def find_opt(self, text: str, start: int = 0, *, prefix: bool = False) -> int | None:
        try:
            return self.find(text, start, prefix=prefix)
        except SeedPageError:
            return None

    def search(self, pattern: str, start: int = 0) -> tuple[int, re.Match[str]]:
        """First line at/after ``start`` that fully matches ``pattern``."""
        rx = _rx(pattern)
        for i in range(start, len(self.lines)):
            m = rx.match(self.lines[i].text)
            if m:
                return i, m
        raise self.fail(f"no line matches {pattern[:80]!r} after this line", max(start - 1, 0))

    def expect(self, i: int, pattern: str) -> re.Match[str]:
        """Line ``i`` must match ``pattern``."""
        if i >= len(self.lines):
            raise self.fail(f"page ends; expected {pattern[:80]!r}")
        m = _rx(pattern).match(self.lines[i].text)
        if m is None:
            raise self.fail(f"expected {pattern[:80]!r}", i)
        return m

    def expect_text(self, i: int, text: str) -> None:
        if i >= len(self.lines) or self.lines[i].text != text:
            raise self.fail(f"expected {text!r}", i)

    def num(self, text: str, i: int, *, thousands: Literal[",", "."] = ",") -> Shown:
        try:
            return Shown.parse(text, thousands=thousands)
        except ValueError as exc:
            raise self.fail(str(exc), i) from None

    def verdict(self, text: str, i: int) -> Verdict:
        entry = VERDICT_TEXTS.get(text)
        if entry is None:
            raise self.fail(f"unknown verdict text {text!r}", i)
        lang, kind = entry
        if lang != self.lang:
            raise self.fail(f"{lang} verdict text on a {self.lang} page: {text!r}", i)
        return Verdict(text=text, kind=kind)

    def same(self, what: str, a: object, b: object, i: int) -> None:
        if a != b:
            raise self.fail(f"{what} disagrees within the page: {a!r} != {b!r}", i)

    def _detect_language(self) -> Language:
        texts = {line.text for line in self.lines}
        found = [lang for lang, t in _LANG.items() if t["required"] in texts]
        if len(found) != 1:
            raise self.fail(f"cannot tell the page language (headline labels found: {found})", 0)
        return found[0]  # type: ignore[return-value]

    # -- sections -----------------------------------------------------------------

    def parse(self, stem: str, path: Path) -> SeedPage:
        title_m = self.expect(0, self.s("title"))
        layout: Layout = "model" if self.lang == "en" else "model_on_hardware"
        intro = self.parse_intro()
        self.same("model (title vs intro)", title_m.group("model"), intro.model, 0)

        configurator = self.parse_configurator() if layout == "model_on_hardware" else None
        headline = self.parse_headline()
        breakdown = self.parse_breakdown() if layout == "model_on_hardware" else None
        recommended = self.parse_recommended()
        commands, cmd_end = self.parse_commands()
        simulator = self.parse_simulator(cmd_end)
        tco, hours, checked = self.parse_tco()
        finetune = self.parse_finetune(intro.model)
        quick = self.parse_quick_verdict()
        kv = self.parse_kv_tuning()
        faq = self.parse_faq() if layout == "model_on_hardware" else None
        compat = self.parse_compat_table() if layout == "model" else None
        matrix = self.parse_quant_matrix() if layout == "model_on_hardware" else None
        other_gpus = self.parse_other_gpus() if layout == "model_on_hardware" else None
        other_models = self.parse_other_models() if layout == "model_on_hardware" else None

        # Internal consistency of names that the page repeats.
        for what, value, at in (
            ("model (kv tuning)", kv.model, kv.line),
            ("model (quick verdict)", quick.model, quick.line),
            ("model (simulator)", simulator.model, simulator.line),
        ):
            self.same(what, value, intro.model, self._index_of(at))
        self.same("architecture (headline vs intro)", headline.architecture, intro.architecture, 0)
        self.same("architecture (kv tuning)", kv.architecture, intro.architecture, self._index_of(kv.line))

        if layout == "model_on_hardware":
            target = title_m.group("hw")
            self.same("target hardware (intro)", intro.target_hardware, target, 1)
            self.same("target hardware (quick verdict)", quick.hardware, target, self._index_of(quick.line))
            assert faq is not None and configurator is not None
            self.same("target hardware (FAQ)", faq.hardware, target, self._index_of(faq.line))
            context_tokens, context_label = configurator.context_tokens, configurator.context_label
            bandwidth: Shown | None = configurator.bandwidth_gbs
        else:
            target = quick.hardware
            ctx = re.search(r"--ctx-size (\d+)", commands.llama_cpp)
            if ctx is None:
                raise self.fail("llama.cpp command has no --ctx-size")
            context_tokens = Shown.parse(ctx.group(1))
            context_label = quick.context_label
            bandwidth = None

        meta = PageMeta(
            language=self.lang,
            layout=layout,
            title=self.lines[0].text,
            model=intro.model,
            total_params_b=intro.total_params_b,
            active_params_b=intro.active_params_b,
            architecture=intro.architecture,
            license=headline.license,
            hf_repo=intro.hf_repo,
            gguf_repo=intro.gguf_repo,
            target_hardware=target,
            target_physical_gb=headline.physical_gb,
            target_bandwidth_gbs=bandwidth,
            quant=intro.quant,
            weight_bits=intro.weight_bits,
            context_tokens=context_tokens,
            context_label=context_label,
            hours_per_day=hours,
            checked_date=checked,
        )
        return SeedPage(
            stem=stem,
            path=path,
            meta=meta,
            intro=intro,
            configurator=configurator,
            headline=headline,
            breakdown=breakdown,
            recommended=recommended,
            commands=commands,
            simulator=simulator,
            tco=tco,
            finetune=finetune,
            quick_verdict=quick,
            kv_tuning=kv,
            faq=faq,
            compat_table=compat,
            quant_matrix=matrix,
            other_gpus=other_gpus,
            other_models=other_models,
        )

    def _index_of(self, line_no: int) -> int:
        for i, line in enumerate(self.lines):
            if line.no == line_no:
                return i
        return len(self.lines) - 1

    def parse_intro(self) -> Intro:
        m = self.expect(1, self.s("intro"))
        groups = m.groupdict()
        return Intro(
            model=m.group("model"),
            total_params_b=self.num(m.group("total"), 1),
            active_params_b=self.num(m.group("active"), 1),
            architecture=m.group("arch"),
            weights_gib=self.num(m.group("w"), 1),
            weight_bits=self.num(m.group("bits"), 1),
            quant=m.group("quant"),
            required_8k_gib=self.num(m.group("r8"), 1),
            required_32k_gib=self.num(m.group("r32"), 1),
            target_hardware=groups.get("hw"),
            decode_tok_s=self.num(groups["dec"], 1) if groups.get("dec") else None,
            hf_repo=groups.get("hf"),
            gguf_repo=groups.get("gguf"),
            line=self.lines[1].no,
        )

    def parse_configurator(self) -> Configurator:
        i = self.find(self.s("cfg_params"), prefix=True)
        m = self.expect(i, "^" + re.escape(self.s("cfg_params")) + r"(?P<total>@N@)B / (?P<active>@N@)B$")
        j = self.find(self.s("cfg_weights"), i, prefix=True)
        w = self.expect(j, "^" + re.escape(self.s("cfg_weights")) + r"(?P<quant>\S+) · (?P<w>@N@) GiB$")
        k = self.find(self.s("cfg_context"), j, prefix=True)
        c = self.expect(k, "^" + re.escape(self.s("cfg_context")) + r"(?P<tok>@N@) \((?P<label>\d+K)\)$")
        h = self.find(self.s("cfg_hardware"), k)
        hw = self.expect(h + 1, r"^(?P<gb>@N@) GB · (?P<bw>@N@) GB/s$")
        o = self.find(self.s("cfg_offload"), h, prefix=True)
        off = self.expect(o, "^" + re.escape(self.s("cfg_offload")) + r"(?P<pct>@N@)%$")
        return Configurator(
            total_params_b=self.num(m.group("total"), i),
            active_params_b=self.num(m.group("active"), i),
            quant=w.group("quant"),
            weights_gib=self.num(w.group("w"), j),
            context_tokens=self.num(c.group("tok"), k),
            context_label=c.group("label"),
            physical_gb=self.num(hw.group("gb"), h + 1),
            bandwidth_gbs=self.num(hw.group("bw"), h + 1),
            offload_pct=self.num(off.group("pct"), o),
            line=self.lines[i].no,
        )

    def parse_headline(self) -> Headline:
        r = self.find(self.s("required"))
        v = next((i for i in range(r) if self.lines[i].text in VERDICT_TEXTS), None)
        if v is None:
            raise self.fail("no headline verdict before the headline card", r)
        verdict = self.verdict(self.lines[v].text, v)
        method = self.lines[v + 1].text
        if method.endswith(" HF config.json ↗"):
            method = method[: -len(" HF config.json ↗")]
        L = self.lines

        def val(i: int, pattern: str) -> Shown:
            return self.num(self.expect(i, pattern).group("v"), i)

        req = val(r + 1, r"^(?P<v>@N@) GiB$")
        req_gb = val(r + 2, self.s("required_gb"))
        self.expect_text(r + 3, self.s("usable"))
        usable = val(r + 4, r"^(?P<v>@N@) GiB$")
        physical = val(r + 5, self.s("physical"))
        headroom_label = L[r + 6].text
        headroom = val(r + 7, r"^(?P<v>@N@) GiB$")
        util = val(r + 8, self.s("utilization"))
        self.expect_text(r + 9, self.s("decode"))
        decode = val(r + 10, r"^(?P<v>@N@) tok/s$")
        active = val(r + 11, self.s("active"))
        self.expect_text(r + 12, self.s("prefill"))
        prefill = val(r + 13, r"^(?P<v>@N@) tok/s$")
        ttft = val(r + 14, self.s("ttft"))
        self.expect_text(r + 15, self.s("cost"))
        cost = val(r + 16, r"^(?P<v>@N@)$")
        arch = self.expect(r + 17, r"^(?P<arch>.+) · (?P<lic>[^·]+)$")
        return Headline(
            verdict=verdict,
            method_label=method,
            required_gib=req,
            required_gb=req_gb,
            usable_gib=usable,
            physical_gb=physical,
            headroom_label=headroom_label,
            headroom_gib=headroom,
            utilization_pct=util,
            decode_tok_s=decode,
            active_params_b=active,
            prefill_tok_s=prefill,
            ttft_4k_ms=ttft,
            cost_per_1m_usd=cost,
            architecture=arch.group("arch"),
            license=arch.group("lic"),
            line=L[v].no,
        )

    def parse_breakdown(self) -> MemoryBreakdown:
        label = self.s("breakdown")
        i, m = self.search(
            "^" + re.escape(label) + r" \(GiB\) (?P<t>@N@) GiB \((?P<gb>@N@) GB\) / "
            r"(?P<cap>@N@) (?P<unit>GiB|GB) \((?P<u>@N@)%\)$"
        )
        parts = self.t["breakdown_parts"]
        assert isinstance(parts, tuple)
        pattern = "^" + " ".join(re.escape(p) + r": (?P<p%d>@N@) GiB" % n for n, p in enumerate(parts)) + "$"
        p = self.expect(i + 1, pattern)
        return MemoryBreakdown(
            total_gib=self.num(m.group("t"), i),
            total_gb=self.num(m.group("gb"), i),
            capacity=self.num(m.group("cap"), i),
            capacity_unit=m.group("unit"),
            utilization_pct=self.num(m.group("u"), i),
            weights_gib=self.num(p.group("p0"), i + 1),
            kv_state_gib=self.num(p.group("p1"), i + 1),
            buffers_gib=self.num(p.group("p2"), i + 1),
            offload_gib=self.num(p.group("p3"), i + 1),
            line=self.lines[i].no,
        )

    def parse_recommended(self) -> tuple[RecommendedSlot, ...]:
        start = self.find(self.s("rec_heading"))
        end = self.find(self.s("launch_heading"), start)
        labels = self.t["slots"]
        assert isinstance(labels, tuple)
        positions = [self.find(label, start) for label in labels]
        if positions != sorted(positions) or positions[-1] >= end:
            raise self.fail("recommended-hardware tiles out of order", start)
        bounds = positions[1:] + [end]
        slots: list[RecommendedSlot] = []
        per_hour = re.escape(self.s("per_hour"))
        for slot, label, pos, stop in zip(_SLOTS, labels, positions, bounds):
            if stop - pos != 3:
                raise self.fail(f"tile {label!r} should have two lines", pos)
            name, detail = self.lines[pos + 1].text, self.lines[pos + 2].text
            if slot == "cloud":
                m = self.expect(pos + 1, r"^(?P<prov>.+) · (?P<rate>@N@) / " + per_hour + "$")
                count = re.match(r"^(\d+)x ", detail)
                slots.append(
                    RecommendedSlot(
                        slot=slot,
                        label=label,
                        name=m.group("prov"),
                        detail=detail,
                        price_usd=None,
                        hourly_usd=self.num(m.group("rate"), pos + 1),
                        instance=detail,
                        gpu_count=self.num(count.group(1), pos + 2) if count else None,
                        memory_gb=None,
                        line=self.lines[pos].no,
                    )
                )
                continue
            d = self.expect(pos + 2, r"^(?:(?P<mem>@N@)GB · )?(?P<price>@N@)$")
            count = re.match(r"^(\d+)x ", name)
            suffix = re.search(r" \((\d+)GB\)$", name)
            memory = d.group("mem") or (suffix.group(1) if suffix else None)
            slots.append(
                RecommendedSlot(
                    slot=slot,
                    label=label,
                    name=name,
                    detail=detail,
                    price_usd=self.num(d.group("price"), pos + 2),
                    hourly_usd=None,
                    instance=None,
                    gpu_count=self.num(count.group(1), pos + 1) if count else None,
                    memory_gb=self.num(memory, pos + 1) if memory else None,
                    line=self.lines[pos].no,
                )
            )
        return tuple(slots)

    def _command(self, label: str, start: int) -> tuple[str, int]:
        i = self.find(label, start) + 1
        if i >= len(self.lines):
            raise self.fail(f"no command after {label!r}")
        parts = [self.lines[i].text]
        while parts[-1].endswith("\\"):
            i += 1
            if i >= len(self.lines):
                raise self.fail(f"command after {label!r} ends in a continuation")
            parts.append(self.lines[i].text)
        return " ".join(" ".join(parts).split()), i + 1

    def parse_commands(self) -> tuple[LaunchCommands, int]:
        start = self.find(self.s("launch_heading"))
        llama, nxt = self._command("llama.cpp (GGUF)", start)
        vllm, nxt = self._command("vLLM", nxt)
        if not llama.startswith("llama-server ") or not vllm.startswith("vllm serve "):
            raise self.fail("unexpected launch commands", start)
        return LaunchCommands(llama_cpp=llama, vllm=vllm), nxt

    def parse_simulator(self, i: int) -> Simulator:
        cap = self.expect(i, r"^.+ \(TTFT (?P<ttft>@N@)ms · (?P<dec>@N@) tok/s\)$")
        alloc = self.expect(i + 1, r"^\[(?P<model>.+) · (?P<gib>@N@) GiB\] .+$")
        return Simulator(
            ttft_ms=self.num(cap.group("ttft"), i),
            decode_tok_s=self.num(cap.group("dec"), i),
            model=alloc.group("model"),
            required_gib=self.num(alloc.group("gib"), i + 1),
            line=self.lines[i].no,
        )

    def parse_tco(self) -> tuple[Tco, Shown | None, str | None]:
        start = self.find(self.s("tco_heading"))
        hours: Shown | None = None
        checked: str | None = None
        if "checked" in self.t:
            _, cm = self.search(self.s("checked"), start)
            checked = cm.group("v")
            hi, hm = self.search(self.s("hours"), start)
            hours = self.num(hm.group("v"), hi)
        b = self.find(self.s("breakeven"), start)
        be = self.expect(b + 1, self.s("breakeven_value"))
        pw = self.expect(b + 2, self.s("power"))
        first = self.s("provider_header")
        header = next(
            (i for i in range(b, len(self.lines)) if (_cells(self.lines[i].text) or [""])[0] == first),
            None,
        )
        if header is None:
            raise self.fail(f"missing provider table (header cell {first!r})", b)
        head_cells = _cells(self.lines[header].text)
        if head_cells is None or len(head_cells) != 7:
            raise self.fail("provider table header should have 7 columns", header)
        i = header + 1
        if re.fullmatch(r"\|(?:-+\|)+", self.lines[i].text):
            i += 1
        rows: list[ProviderRow] = []
        per_hour = re.escape(self.s("per_hour"))
        per_month = re.escape(self.s("per_month"))
        while i < len(self.lines):
            cells = _cells(self.lines[i].text)
            if cells is None or len(cells) != 7:
                break
            vram = _rx(r"^(?P<v>@N@) GB$").match(cells[2])
            hourly = _rx(r"^(?P<v>@N@) / " + per_hour + "$").match(cells[3])
            monthly = _rx(r"^(?P<v>@N@) / " + per_month + "$").match(cells[4])
            if not (vram and hourly and monthly):
                raise self.fail("provider row cells do not parse", i)
            rows.append(
                ProviderRow(
                    provider_text=cells[0],
                    provider=cells[0].replace("*", "").strip(),
                    instance=cells[1],
                    vram_gb=self.num(vram.group("v"), i),
                    hourly_usd=self.num(hourly.group("v"), i),
                    monthly_usd=self.num(monthly.group("v"), i),
                    billing=cells[5],
                    deploy_text=cells[6],
                    line=self.lines[i].no,
                )
            )
            i += 1
        if not rows:
            raise self.fail("provider table has no rows", header)
        tco = Tco(
            breakeven_months=self.num(be.group("v"), b + 1),
            local_power_usd_month=self.num(pw.group("v"), b + 2),
            providers=tuple(rows),
            line=self.lines[start].no,
        )
        return tco, hours, checked

    def parse_finetune(self, model: str) -> tuple[FineTuneBlock, ...]:
        h, hm = self.search(self.s("ft_heading"))
        self.same("model (fine-tuning heading)", hm.group("model"), model, h)
        modes = self.t["ft_modes"]
        parts = self.t["ft_parts"]
        assert isinstance(modes, tuple) and isinstance(parts, tuple)
        parts_rx = "^" + " · ".join(re.escape(p) + r": (?P<p%d>@N@) GiB" % n for n, p in enumerate(parts)) + "$"
        blocks: list[FineTuneBlock] = []
        i = h + 1
        for mode, label in modes:
            self.expect(i, "^" + re.escape(label) + r"(?: .+)?$")
            rest = self.lines[i].text[len(label) :].strip()
            at = i
            if not rest:
                i += 1
                rest = self.lines[i].text
            verdict = self.verdict(rest, i)
            total = self.expect(i + 1, r"^(?P<v>@N@) GiB$")
            p = self.expect(i + 2, parts_rx)
            rec_prefix = self.s("ft_rec")
            rec = self.expect(i + 3, "^" + re.escape(rec_prefix) + r"(?P<gpu>.+ \((?P<mem>@N@)GB\))$")
            gpu = rec.group("gpu")
            count = re.match(r"^(\d+)x ", gpu)
            blocks.append(
                FineTuneBlock(
                    mode=mode,
                    label=label,
                    verdict=verdict,
                    total_gib=self.num(total.group("v"), i + 1),
                    weights_gib=self.num(p.group("p0"), i + 2),
                    grads_optimizer_gib=self.num(p.group("p1"), i + 2),
                    activations_gib=self.num(p.group("p2"), i + 2),
                    recommended_gpu=gpu,
                    recommended_gpu_count=self.num(count.group(1), i + 3) if count else None,
                    recommended_memory_gb=self.num(rec.group("mem"), i + 3),
                    line=self.lines[at].no,
                )
            )
            i += 4
        return tuple(blocks)

    def parse_quick_verdict(self) -> QuickVerdict:
        h = self.find(self.s("qv_heading"))
        m = self.expect(h + 1, self.s("qv"))
        i = h + 1
        return QuickVerdict(
            hardware=m.group("hw"),
            physical_gb=self.num(m.group("phys"), i),
            usable_gib=self.num(m.group("usable"), i),
            model=m.group("model"),
            weight_bits=self.num(m.group("bits"), i),
            quant=m.group("quant"),
            context_label=m.group("ctx"),
            required_gib=self.num(m.group("req"), i),
            headroom_gib=self.num(m.group("head"), i),
            decode_tok_s=self.num(m.group("dec"), i),
            line=self.lines[i].no,
        )

    def parse_kv_tuning(self) -> KvTuning:
        h = self.find(self.s("kv_heading"))
        m = self.expect(h + 1, self.s("kv"))
        i = h + 1
        return KvTuning(
            model=m.group("model"),
            architecture=m.group("arch"),
            total_params_b=self.num(m.group("total"), i),
            active_params_b=self.num(m.group("active"), i),
            kv_8k_gib=self.num(m.group("kv8"), i),
            kv_32k_gib=self.num(m.group("kv32"), i),
            q8_saving_32k_gib=self.num(m.group("save"), i),
            required_32k_q8kv_gib=self.num(m.group("tot"), i),
            line=self.lines[i].no,
        )

    def parse_faq(self) -> Faq:
        h = self.find(self.s("faq_heading"))
        q1 = self.expect(h + 1, self.s("faq_q1"))
        a1 = self.expect(h + 2, self.s("faq_a1"))
        q2 = self.expect(h + 3, self.s("faq_q2"))
        a2 = self.expect(h + 4, self.s("faq_a2"))
        self.same("FAQ hardware (question vs answer)", q1.group("hw"), a1.group("hw"), h + 2)
        for what, value, at in (
            ("FAQ model (q1)", q1.group("model"), h + 1),
            ("FAQ model (q2)", q2.group("model"), h + 3),
        ):
            self.same(what, value, a1.group("model"), at)
        return Faq(
            question_fit=self.lines[h + 1].text,
            question_32k=self.lines[h + 3].text,
            hardware=a1.group("hw"),
            model=a1.group("model"),
            quant=a1.group("quant"),
            context_label=a1.group("ctx"),
            required_8k_gib=self.num(a1.group("req"), h + 2),
            weights_gib=self.num(a1.group("w"), h + 2),
            kv_8k_gib=self.num(a1.group("kv"), h + 2),
            buffers_gib=self.num(a1.group("buf"), h + 2),
            usable_gib=self.num(a1.group("usable"), h + 2),
            decode_tok_s=self.num(a1.group("dec"), h + 2),
            context_32k_tokens=self.num(a2.group("tokens"), h + 4, thousands="."),
            kv_32k_gib=self.num(a2.group("kv32"), h + 4),
            required_32k_gib=self.num(a2.group("r32"), h + 4),
            required_32k_gb=self.num(a2.group("gb32"), h + 4),
            line=self.lines[h + 1].no,
        )

    def parse_compat_table(self) -> CompatTable:
        h, hm = self.search(_LANG["en"]["compat_heading"])  # type: ignore[arg-type]
        header = _cells(self.lines[h + 1].text)
        if header is None or len(header) != 8 or header[0] != "Target Hardware":
            raise self.fail("compatibility table header should have 8 columns", h + 1)
        if not re.fullmatch(r"\|(?:-+\|)+", self.lines[h + 2].text):
            raise self.fail("compatibility table separator missing", h + 2)
        rows: list[CompatRow] = []
        i = h + 3
        while i < len(self.lines):
            cells = _cells(self.lines[i].text)
            if cells is None or len(cells) != 8:
                break
            mem = _rx(r"^(?P<gb>@N@) GB \((?P<u>@N@) GiB\)$").match(cells[1])
            bw = _rx(r"^(?P<v>@N@) GB/s$").match(cells[2])
            t8 = _rx(r"^(?P<v>@N@) GiB$").match(cells[3])
            t32 = _rx(r"^(?P<v>@N@) GiB$").match(cells[4])
            dec = _rx(r"^(?P<v>@N@) tok/s$").match(cells[5])
            if not (mem and bw and t8 and t32 and dec):
                raise self.fail("compatibility row cells do not parse", i)
            rows.append(
                CompatRow(
                    hardware=cells[0],
                    physical_gb=self.num(mem.group("gb"), i),
                    usable_gib=self.num(mem.group("u"), i),
                    bandwidth_gbs=self.num(bw.group("v"), i),
                    total_8k_gib=self.num(t8.group("v"), i),
                    total_32k_gib=self.num(t32.group("v"), i),
                    decode_tok_s=self.num(dec.group("v"), i),
                    verdict=self.verdict(cells[6], i),
                    line=self.lines[i].no,
                )
            )
            i += 1
        stated = self.num(hm.group("n"), h)
        if len(rows) != stated.value:
            raise self.fail(f"heading states {stated.text} GPUs but the table has {len(rows)} rows", h)
        return CompatTable(
            model=hm.group("model"),
            stated_count=stated,
            weight_bits=self.num(hm.group("bits"), h),
            quant=hm.group("quant"),
            rows=tuple(rows),
            line=self.lines[h].no,
        )

    def parse_quant_matrix(self) -> QuantMatrix:
        h, hm = self.search(self.s("matrix_heading"))
        header = _cells(self.lines[h + 1].text)
        if header is None or len(header) != 8 or header[0] != self.s("matrix_header"):
            raise self.fail("quantization matrix header should have 8 columns", h + 1)
        compat = _rx(self.s("matrix_compat")).match(header[5])
        if compat is None:
            raise self.fail("quantization matrix compatibility column has no target", h + 1)
        rows: list[MatrixRow] = []
        i = h + 2
        while i < len(self.lines):
            cells = _cells(self.lines[i].text)
            if cells is None or len(cells) != 8:
                break
            label = _rx(r"^.+ \((?P<q>[A-Za-z0-9_\-]+)\)$").match(cells[0])
            w = _rx(r"^(?P<v>@N@) GiB$").match(cells[1])
            kv = _rx(r"^(?P<v>@N@) GiB$").match(cells[2])
            tot = _rx(r"^(?P<t>@N@) GiB \((?P<gb>@N@) GB\)$").match(cells[3])
            dec = _rx(r"^(?P<v>@N@) tok/s$").match(cells[4])
            if not (label and w and kv and tot and dec):
                raise self.fail("quantization matrix row cells do not parse", i)
            rows.append(
                MatrixRow(
                    quant=label.group("q"),
                    label=cells[0],
                    weights_gib=self.num(w.group("v"), i),
                    kv_gib=self.num(kv.group("v"), i),
                    total_gib=self.num(tot.group("t"), i),
                    total_gb=self.num(tot.group("gb"), i),
                    decode_tok_s=self.num(dec.group("v"), i),
                    verdict=self.verdict(cells[5], i),
                    recommended_gpu=cells[6],
                    data_source=cells[7],
                    line=self.lines[i].no,
                )
            )
            i += 1
        if not rows:
            raise self.fail("quantization matrix has no rows", h)
        return QuantMatrix(
            model=hm.group("model"),
            context_label=hm.group("ctx"),
            target_hardware=compat.group("hw"),
            rows=tuple(rows),
            line=self.lines[h].no,
        )

    def parse_other_gpus(self) -> tuple[OtherGpu, ...]:
        h = self.find(self.s("other_gpus"))
        text = self.lines[h + 1].text
        items = re.findall(r".+?\((?:\d+)GB\)", text)
        if "".join(items) != text or not items:
            raise self.fail("cannot split the GPU list into 'name (NNGB)' entries", h + 1)
        out: list[OtherGpu] = []
        for item in items:
            m = re.fullmatch(r"(?P<name>.+) \((?P<gb>\d+)GB\)", item)
            if m is None:
                raise self.fail(f"GPU list entry {item!r} has no ' (NNGB)' suffix", h + 1)
            out.append(OtherGpu(text=item, name=m.group("name"), memory_gb=self.num(m.group("gb"), h + 1)))
        return tuple(out)

    def parse_other_models(self) -> tuple[str, ...]:
        h = self.find(self.s("other_models"))
        text = self.lines[h + 1].text
        items = _split_models(text)
        rebuilt = "".join(item if item.endswith(")") else item + " " for item in items).rstrip()
        if rebuilt != text:
            raise self.fail("model list split does not reproduce the line", h + 1)
        for item in items:
            if not _MODEL_FAMILY.match(item.split(" ")[0]):
                raise self.fail(f"model list entry {item!r} starts with an unknown family", h + 1)
        return tuple(items)


def _cells(line: str) -> list[str] | None:
    """Cells of a markdown (``| a | b |``) or tab-separated table row, else ``None``."""
    if line.startswith("|") and line.endswith("|"):
        return [cell.strip() for cell in line[1:-1].split("|")]
    if "\t" in line:
        return [cell.strip() for cell in line.split("\t")]
    return None


def _split_models(text: str) -> list[str]:
    """Split the run-together "other models" line into model names.

    The page concatenates entries as ``name␠`` or ``name (suffix)`` without a
    separator, so an entry ends at ``)`` followed by a non-space, or before a
    model-family word (:data:`_MODEL_FAMILY`) that does not follow ``Distill``.
    """
    items: list[str] = []
    for chunk in re.split(r"(?<=\))(?=\S)", text):
        current: list[str] = []
        for token in chunk.split(" "):
            if current and _MODEL_FAMILY.match(token) and current[-1] != "Distill":
                items.append(" ".join(current))
                current = []
            current.append(token)
        if current:
            items.append(" ".join(current))
    return [item.strip() for item in items if item.strip()]


# --------------------------------------------------------------------------- API


def parse_seed_text(text: str, name: str, *, stem: str | None = None, path: Path | None = None) -> SeedPage:
    """Parse the text of one seed page; ``name`` is used in error messages."""
    parser = _Parser(text, name)
    return parser.parse(stem or Path(name).stem, path or Path(name))


def parse_seed_page(path: Path) -> SeedPage:
    """Parse one seed page file."""
    return parse_seed_text(path.read_text(encoding="utf-8"), path.name, stem=path.stem, path=path)


def load_seed_pages(seeds_dir: Path | None = None) -> dict[str, SeedPage]:
    """Parse every ``*.txt`` seed page, keyed by file stem (``000_5e7fe9abcf65f49f`` …)."""
    directory = seeds_dir or SEEDS_DIR
    files = sorted(directory.glob("*.txt"))
    if not files:
        raise SeedPageError(f"{directory}: no seed pages found")
    return {path.stem: parse_seed_page(path) for path in files}
