"""A model's ``config.json`` and checkpoint headers from the Hugging Face Hub, by name.

Only an import by name (``fitproof import hf ORG/NAME``) or ``--fetch`` calls this module:
nothing else in fitproof opens a connection. huggingface_hub does the HTTP, so it honours
``HF_ENDPOINT`` (a mirror), ``HF_TOKEN`` (gated and private repositories) and
``HF_HUB_OFFLINE``, and keeps what it downloads in its own cache: a second import of the
same revision needs no network.

Every answer is untrusted. ``config.json`` is downloaded only after the Hub says it is
small, and then read with the local importer's checks (``config_file.read_config``). The
checkpoint's parameters are counted from the safetensors headers alone (HTTP range
requests, never the weights): a sharded checkpoint's index may name at most
``MAX_SHARDS`` files, each a plain file name ending in ``.safetensors``, and each header is
parsed by huggingface_hub's parser, which refuses one over its size limit. Any failure is
one line naming the repository; nothing is written.
"""

from __future__ import annotations

import json
import logging
import re
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import attrs

from ..errors import InputError
from ..files.pack_files import USER_PACKS_ENV, user_pack_folder
from .config_file import MAX_CONFIG_BYTES, read_config

# ORG/NAME as the Hub allows them (letters, digits, '-', '_', '.'; at most 96 characters each)
REPO_ID = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9._-]{0,94}[A-Za-z0-9])?"
                     r"/[A-Za-z0-9](?:[A-Za-z0-9._-]{0,94}[A-Za-z0-9_])?")
REVISION = re.compile(r"[A-Za-z0-9][A-Za-z0-9._/-]{0,199}")
SHARD_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,199}\.safetensors")
MAX_SHARDS = 1_000  # DeepSeek V3's checkpoint has 163; an index naming more is not a model's
MAX_INDEX_BYTES = 50_000_000  # a weight map of a few hundred thousand tensors at most
CONFIG = "config.json"
SAFETENSORS_SINGLE = "model.safetensors"
SAFETENSORS_INDEX = "model.safetensors.index.json"
# the libraries whose exceptions mean "the Hub did not answer as a Hub answers"
_HTTP_MODULES = ("huggingface_hub", "httpx", "httpx2", "httpcore", "requests", "urllib3", "h11")


def is_repo_id(text: str) -> bool:
    """Whether ``text`` reads as a Hub repository (ORG/NAME) and names no local file."""
    return bool(REPO_ID.fullmatch(text)) and ".." not in text and not Path(text).exists()


@attrs.frozen
class HubModel:
    """What the Hub holds of one model revision: its config and checkpoint parameters."""

    repo_id: str
    commit: str  # the revision's commit, as the Hub resolved it
    config: dict[str, Any]
    config_url: str  # where the config was read, pinned to the commit
    checkpoint_params: dict[str, int]  # safetensors dtype -> parameters; empty if unknown
    checkpoint_files: int
    notes: tuple[str, ...] = ()


def user_pack_folder_or_error() -> Path:
    """The user's pack folder, or an :class:`InputError` when ``FITPROOF_USER_PACKS`` is off."""
    folder = user_pack_folder()
    if folder is None:
        raise InputError(f"{USER_PACKS_ENV} is off: pass --out DIR to say where the pack goes")
    return folder


def user_models_folder() -> Path:
    """Where an import by name writes its pack: ``models`` in the user's pack folder."""
    return user_pack_folder_or_error() / "models"


def fetch_model(repo_id: str, revision: str | None = None) -> HubModel:
    """Read ``repo_id``'s config.json and count its checkpoint's parameters by dtype."""
    if not REPO_ID.fullmatch(repo_id) or ".." in repo_id:
        raise InputError(f"{repo_id!r} is not a Hugging Face repository name (ORG/NAME)")
    if revision is not None and (not REVISION.fullmatch(revision) or ".." in revision):
        raise InputError(f"--revision {revision!r} is not a branch, tag or commit name")
    from huggingface_hub import constants

    with hub_errors(repo_id, CONFIG):
        if not constants.is_offline_mode():
            _check_size(repo_id, CONFIG, revision, MAX_CONFIG_BYTES)
        path = Path(_download(repo_id, CONFIG, revision))
    commit = path.parent.name  # huggingface_hub's cache: .../snapshots/<commit>/config.json
    try:
        config = read_config(path)
    except InputError as exc:  # named by the repository, not by the cache's file
        raise InputError(str(exc).replace(str(path), f"{repo_id}: {CONFIG}")) from None
    endpoint = constants.ENDPOINT.rstrip("/")
    url = f"{endpoint}/{repo_id}/blob/{commit}/{CONFIG}"
    if constants.is_offline_mode():
        return HubModel(repo_id, commit, config, url, {}, 0,
                        ("HF_HUB_OFFLINE is set: the checkpoint's headers were not read",))
    params, files, notes = _checkpoint_params(repo_id, commit)
    return HubModel(repo_id, commit, config, url, params, files, notes)


def _download(repo_id: str, filename: str, revision: str | None) -> str:
    from huggingface_hub import hf_hub_download

    return str(hf_hub_download(repo_id, filename, revision=revision))


def _check_size(repo_id: str, filename: str, revision: str | None, limit: int) -> None:
    """Refuse a file the Hub says is over ``limit`` bytes (or does not size) before it is
    downloaded: a hostile endpoint cannot fill the disk through a config.json."""
    from huggingface_hub import get_hf_file_metadata, hf_hub_url

    meta = get_hf_file_metadata(hf_hub_url(repo_id, filename, revision=revision))
    if meta.size is None or meta.size > limit:
        size = "no size" if meta.size is None else f"{meta.size:,} bytes"
        raise InputError(f"{repo_id}: the Hub gives {filename} {size}; at most {limit:,} "
                         "bytes are read")


def _checkpoint_params(repo_id: str, commit: str) -> tuple[dict[str, int], int, tuple[str, ...]]:
    """Parameters by dtype of the checkpoint's safetensors files, read from their headers."""
    from huggingface_hub import HfApi

    api = HfApi()
    with hub_errors(repo_id, "the safetensors headers"):
        if api.file_exists(repo_id, SAFETENSORS_SINGLE, revision=commit):
            shards = [SAFETENSORS_SINGLE]
        elif api.file_exists(repo_id, SAFETENSORS_INDEX, revision=commit):
            shards = _shards(repo_id, commit)
        else:
            return {}, 0, (f"{repo_id} has no {SAFETENSORS_SINGLE} or {SAFETENSORS_INDEX}: "
                           "its checkpoint's parameters were not counted",)
        counts: Counter[str] = Counter()
        for shard in shards:
            header = api.parse_safetensors_file_metadata(repo_id, shard, revision=commit)
            for dtype, count in header.parameter_count.items():
                counts[str(dtype)] += int(count)
    return dict(sorted(counts.items())), len(shards), ()


def _shards(repo_id: str, commit: str) -> list[str]:
    """The files a sharded checkpoint's index names, each checked to be a plain name."""
    with hub_errors(repo_id, SAFETENSORS_INDEX):
        _check_size(repo_id, SAFETENSORS_INDEX, commit, MAX_INDEX_BYTES)
        path = Path(_download(repo_id, SAFETENSORS_INDEX, commit))
    where = f"{repo_id}: {SAFETENSORS_INDEX}"
    try:
        index = json.loads(path.read_bytes().decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise InputError(f"{where} is not JSON: {exc}") from None
    weight_map = index.get("weight_map") if isinstance(index, dict) else None
    if not isinstance(weight_map, dict) or not weight_map:
        raise InputError(f"{where}: weight_map is not a table of tensors to files")
    names = set(weight_map.values())
    if len(names) > MAX_SHARDS:
        raise InputError(f"{where} names {len(names):,} files; at most {MAX_SHARDS:,} are read")
    for name in names:
        if not isinstance(name, str) or not SHARD_NAME.fullmatch(name) or ".." in name:
            raise InputError(f"{where}: weight_map names {name!r}, not a safetensors file "
                             "of the repository")
    return sorted(names)


@contextmanager
def hub_errors(repo_id: str, what: str) -> Iterator[None]:
    """One line for each way the Hub can fail, naming the repository and what was read."""
    # the modules that download are imported first: importing one configures the library's
    # logger again, which would undo the quietening below
    from huggingface_hub import HfApi, constants, errors, hf_hub_download  # noqa: F401
    from huggingface_hub.utils.tqdm import (are_progress_bars_disabled, disable_progress_bars,
                                            enable_progress_bars)

    endpoint = constants.ENDPOINT.rstrip("/")
    hub_logger = logging.getLogger("huggingface_hub")
    level, bars_off = hub_logger.level, are_progress_bars_disabled()
    # huggingface_hub's own retries and progress bars would print around fitproof's one line
    hub_logger.setLevel(logging.CRITICAL + 1)
    disable_progress_bars()
    try:
        yield
    except InputError:
        raise
    except errors.GatedRepoError:
        raise InputError(f"{repo_id} is gated: accept its licence on {endpoint}/{repo_id} and "
                         "set HF_TOKEN to a token of that account") from None
    except errors.RepositoryNotFoundError:
        raise InputError(f"{repo_id}: no such repository on {endpoint} (a private one needs "
                         "HF_TOKEN)") from None
    except errors.RevisionNotFoundError:
        raise InputError(f"{repo_id}: the revision asked for does not exist") from None
    except errors.RemoteEntryNotFoundError:
        raise InputError(f"{repo_id} has no {what}") from None
    except (errors.LocalEntryNotFoundError, errors.OfflineModeIsEnabled):
        raise InputError(f"{repo_id}: {what} is not in the local Hugging Face cache and the "
                         f"Hub ({endpoint}) could not be reached (HF_HUB_OFFLINE set, or no "
                         "network)") from None
    except errors.SafetensorsParsingError as exc:
        raise InputError(f"{repo_id}: a safetensors header cannot be read: "
                         f"{_first_line(exc)}") from None
    except errors.HfHubHTTPError as exc:
        status = getattr(getattr(exc, "response", None), "status_code", None)
        raise InputError(f"{repo_id}: the Hub ({endpoint}) answered HTTP {status} while "
                         f"reading {what}") from None
    except Exception as exc:  # the HTTP library's own: timeouts, resets, truncated bodies
        if type(exc).__module__.split(".")[0] not in _HTTP_MODULES and \
                not isinstance(exc, OSError):
            raise
        raise InputError(f"{repo_id}: reading {what} from {endpoint} failed: "
                         f"{_first_line(exc) or type(exc).__name__}") from None
    finally:
        hub_logger.setLevel(level)
        if not bars_off:
            enable_progress_bars()


def _first_line(exc: BaseException) -> str:
    return next((line.strip() for line in str(exc).splitlines() if line.strip()), "")
