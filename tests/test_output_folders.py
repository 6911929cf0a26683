"""What fitproof writes is its own (core/files/own_output.py): a site goes only into a missing or
empty folder or one fitproof built (its marker, a manifest of everything there), never the
working or home folder, is built beside it and swapped in, so a build that dies leaves the
previous site; what is created or replaced is never a link (folders above it may be), a
path under a regular file is one line, an existing --out FILE needs --force; big sweeps
and sites say how big before they start."""

from __future__ import annotations

import importlib
import os
from pathlib import Path

import pytest

import fitproof
from fitproof.cli import main
from fitproof.files.own_output import _HEADER, _TEMP, MARKER, SiteFolder, _temp_name, write_file

pytestmark = pytest.mark.slow

SITE = ["site", "--no-plugins", "--models", "qwen3-8b", "--on", "rtx-4090", "--lang", "en"]
# en: one configurator, the two indexes, the model's and the accelerator's pages; the root
# index and the site map
PAGES = 7
site_module = importlib.import_module("fitproof.site.build")
sweep_module = importlib.import_module("fitproof.engine.sweep")


@pytest.fixture(scope="module")
def packs() -> fitproof.Registry:
    return fitproof.load_registry(plugins=False)


@pytest.fixture(autouse=True)
def _loaded_once(packs, monkeypatch):
    """site and sweep read the packs loaded once (the commands' own work is what is tested)."""
    cli = importlib.import_module("fitproof.cli.runs")
    monkeypatch.setattr(cli, "_registry", lambda args, extra_dirs=(): packs)


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def contents(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` (links as ``link ->`` their target), by relative path."""
    found = {}
    for path in sorted(folder.rglob("*")):
        name = str(path.relative_to(folder))
        if path.is_symlink():
            found[name] = b"link -> " + os.fsencode(os.readlink(path))
        elif path.is_file():
            found[name] = path.read_bytes()
    return found


def build(capsys, out: Path, *extra: str) -> tuple[int, str, str]:
    return run(capsys, *SITE, "--out", str(out), *extra)


# --- the site folder ---------------------------------------------------------------------

def test_a_new_site_carries_the_marker_and_nothing_is_left_beside_it(capsys, tmp_path):
    code, out, err = build(capsys, tmp_path / "site")
    assert (code, err) == (0, "") and out.startswith(f"wrote {PAGES} pages (")
    files = contents(tmp_path / "site")
    assert MARKER in files and "index.html" in files and "en/qwen3-8b/rtx-4090.html" in files
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site"]  # no temporary sibling


def test_a_rebuild_replaces_the_site_whole(capsys, tmp_path):
    site = tmp_path / "site"
    assert build(capsys, site)[0] == 0
    code, _, err = run(capsys, *SITE[:5], "rtx-3090", *SITE[6:], "--out", str(site))
    assert (code, err) == (0, "")
    assert (site / "en/qwen3-8b/rtx-3090.html").is_file()
    assert not (site / "en/qwen3-8b/rtx-4090.html").exists()  # the old build's page is gone
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site"]


def test_an_empty_folder_is_written(capsys, tmp_path):
    (tmp_path / "site").mkdir()
    assert build(capsys, tmp_path / "site")[0] == 0
    assert (tmp_path / "site" / MARKER).is_file()


def test_a_users_folder_is_refused_and_left_byte_for_byte(capsys, tmp_path):
    folder = tmp_path / "mine"
    (folder / "assets").mkdir(parents=True)
    (folder / "index.html").write_bytes(b"<p>my page</p>\n")
    (folder / "sitemap.xml").write_bytes(b"<urlset/>\n")
    (folder / "assets" / "data.js").write_bytes(b"var mine = 1;\n")
    before = contents(folder)
    code, out, err = build(capsys, folder)
    assert (code, out) == (2, "")
    assert err == (f"fitproof: error: {folder} is not empty and not a site fitproof built (no "
                   f"{MARKER}); give an empty or new folder, or pass --force to write into it\n")
    assert contents(folder) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mine"]


def test_force_writes_into_a_users_folder_and_deletes_nothing(capsys, tmp_path):
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "keep.txt").write_bytes(b"the user's\n")
    (folder / "index.html").write_bytes(b"<p>my page</p>\n")
    code, _, err = build(capsys, folder, "--force")
    assert (code, err) == (0, "")
    assert (folder / "keep.txt").read_bytes() == b"the user's\n"
    assert (folder / "index.html").read_bytes().startswith(b"<!DOCTYPE html>")
    assert (folder / "en/qwen3-8b/rtx-4090.html").is_file()
    assert not (folder / MARKER).exists()  # still the user's folder: the next build asks again
    assert build(capsys, folder)[0] == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mine"]


def test_no_build_writes_through_a_link_force_or_not(capsys, tmp_path):
    precious = tmp_path / "precious.txt"
    precious.write_bytes(b"precious\n")
    for name, marked in (("ours", True), ("theirs", False)):
        folder = tmp_path / name
        if marked:  # a site fitproof built, one of its files made a link since
            assert build(capsys, folder)[0] == 0
            (folder / "assets" / "data.js").unlink()
        else:
            (folder / "assets").mkdir(parents=True)
            (folder / "keep.txt").write_bytes(b"kept\n")
        (folder / "assets" / "data.js").symlink_to(precious)
        before = contents(folder)
        for extra in ((), ("--force",)):
            code, out, err = build(capsys, folder, *extra)
            if not marked and not extra:
                assert code == 2 and "is not empty and not a site fitproof built" in err
                continue
            assert (code, out) == (2, "")
            assert err == (f"fitproof: error: {folder}/assets/data.js is a symbolic link; "
                           "fitproof does not write through links\n")
            assert precious.read_bytes() == b"precious\n"
            assert contents(folder) == before  # nothing written, nothing deleted
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ours", "precious.txt", "theirs"]


def test_the_site_folder_itself_may_not_be_a_link(capsys, tmp_path):
    (tmp_path / "real").mkdir()
    (tmp_path / "out").symlink_to(tmp_path / "real")
    code, _, err = build(capsys, tmp_path / "out", "--force")
    assert code == 2 and err == (f"fitproof: error: {tmp_path}/out is a symbolic link; "
                                 "fitproof does not write through links\n")
    assert list((tmp_path / "real").iterdir()) == []


def test_a_folder_under_a_regular_file_is_one_line(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("afile").write_bytes(b"a file\n")
    code, out, err = build(capsys, Path("afile/sub"))
    assert (code, out) == (2, "")
    assert err == "fitproof: error: cannot write afile/sub: afile is a file, not a folder\n"
    code, _, err = build(capsys, Path("afile/sub/deeper"))
    assert err == ("fitproof: error: cannot write afile/sub/deeper: afile is a file, "
                   "not a folder\n")
    assert Path("afile").read_bytes() == b"a file\n"


def test_the_home_folder_is_never_a_site_folder(capsys, tmp_path, monkeypatch):
    home = tmp_path / "home" / "me"
    home.mkdir(parents=True)
    (home / "index.html").write_bytes(b"my notes\n")
    monkeypatch.setenv("HOME", str(home))
    for folder in (home, home.parent):
        code, _, err = build(capsys, folder, "--force")
        assert code == 2 and err == (f"fitproof: error: {folder} is your home folder or holds "
                                     "it; give the site a folder of its own\n")
    assert contents(tmp_path / "home") == {"me/index.html": b"my notes\n"}


# --- a build that dies -------------------------------------------------------------------

def test_a_build_that_dies_midway_leaves_the_previous_site(capsys, tmp_path, monkeypatch):
    site = tmp_path / "site"
    assert build(capsys, site)[0] == 0
    before = contents(site)
    written = []
    real_write = SiteFolder.write

    def dies_midway(self, relative, raw):
        if len(written) == 4:
            raise KeyboardInterrupt  # as a Ctrl-C or a kill lands in the middle of a build
        written.append(relative)
        real_write(self, relative, raw)

    monkeypatch.setattr(SiteFolder, "write", dies_midway)
    with pytest.raises(KeyboardInterrupt):
        main([*SITE[:5], "rtx-3090", *SITE[6:], "--out", str(site)])
    assert len(written) == 4
    assert contents(site) == before  # byte for byte, no page of the new build
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site"]  # its temporary folder gone


def test_a_build_that_dies_on_a_new_folder_leaves_none(capsys, tmp_path, monkeypatch):
    monkeypatch.setattr(SiteFolder, "commit", lambda self: (_ for _ in ()).throw(
        KeyboardInterrupt()))
    with pytest.raises(KeyboardInterrupt):
        main([*SITE, "--out", str(tmp_path / "site")])
    assert list(tmp_path.iterdir()) == []


def test_what_a_killed_build_left_beside_the_folder_is_removed_or_ignored(capsys, tmp_path):
    site = tmp_path / "site"
    assert build(capsys, site)[0] == 0
    # a build killed outright (no handler ran) by a process that is gone, and one of a
    # process that still runs (pid 1: never ours to remove)
    gone = tmp_path / ".site.fitproof-999999999-0123456789ab"
    running = tmp_path / ".site.fitproof-1-0123456789ab"
    for folder in (gone, running):
        (folder / "en").mkdir(parents=True)
        (folder / "en" / "index.html").write_bytes(b"half\n")
    # a file and a link of that name are never removed
    (tmp_path / ".site.fitproof-999999998-0123456789ab").write_bytes(b"a file\n")
    assert build(capsys, site)[0] == 0
    assert not gone.exists()
    assert (running / "en" / "index.html").read_bytes() == b"half\n"
    assert (tmp_path / ".site.fitproof-999999998-0123456789ab").read_bytes() == b"a file\n"
    assert (site / MARKER).is_file() and (site / "en/qwen3-8b/rtx-4090.html").is_file()


def test_a_build_killed_between_its_two_renames_leaves_the_old_site_beside(capsys, tmp_path):
    """The one moment with no site at --out: the old one is beside it, whole, until the
    next build removes it."""
    site = tmp_path / "site"
    assert build(capsys, site)[0] == 0
    before = contents(site)
    aside = tmp_path / ".site.fitproof-999999999-aaaaaaaaaaaa"
    site.rename(aside)  # where commit moves it before moving the new build in
    assert contents(aside) == before
    assert build(capsys, site)[0] == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site"]


# --- files written by other commands -----------------------------------------------------

def test_a_file_is_never_written_through_a_link(capsys, tmp_path):
    precious = tmp_path / "precious.txt"
    precious.write_bytes(b"precious\n")
    (tmp_path / "rows.csv").symlink_to(precious)
    code, out, err = run(capsys, "sweep", "--no-plugins", "--models", "qwen3-8b", "--on",
                         "rtx-4090", "--out", str(tmp_path / "rows.csv"))
    assert (code, out) == (2, "")
    assert err == (f"fitproof: error: {tmp_path}/rows.csv is a symbolic link; fitproof does "
                   "not write through links\n")
    assert precious.read_bytes() == b"precious\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["precious.txt", "rows.csv"]


def test_parquet_is_never_written_through_a_link(capsys, tmp_path):
    pytest.importorskip("pyarrow")
    (tmp_path / "t.parquet").symlink_to(tmp_path / "gone.parquet")  # dangling
    code, _, err = run(capsys, "sweep", "--no-plugins", "--models", "qwen3-8b", "--on",
                       "rtx-4090", "--format", "parquet", "--out", str(tmp_path / "t.parquet"))
    assert code == 2 and err.endswith("t.parquet is a symbolic link; fitproof does not write "
                                      "through links\n")
    assert not (tmp_path / "gone.parquet").exists()


def test_a_file_under_a_regular_file_is_one_line(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("afile").write_bytes(b"a file\n")
    code, _, err = run(capsys, "sweep", "--no-plugins", "--models", "qwen3-8b", "--on",
                       "rtx-4090", "--out", "afile/rows.csv")
    assert code == 2
    assert err == "fitproof: error: cannot write afile/rows.csv: afile is a file, not a folder\n"


def test_write_file_replaces_a_file_whole_and_writes_a_device_as_it_is(tmp_path):
    target = tmp_path / "rows.csv"
    target.write_bytes(b"old rows, longer than the new\n")
    write_file(target, "new\n")
    assert target.read_bytes() == b"new\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["rows.csv"]
    with pytest.raises(fitproof.InputError, match=r"cannot write .*: No such file"):
        write_file(tmp_path / "new" / "t.txt", b"x")  # as open() would: no folder made
    write_file(tmp_path / "new" / "folder" / "t.txt", b"x", make_folders=True)
    assert (tmp_path / "new/folder/t.txt").read_bytes() == b"x"
    if os.path.exists("/dev/null"):
        assert write_file("/dev/null", "nothing\n") == Path("/dev/null")
    with pytest.raises(fitproof.InputError, match=r"cannot write .*: it is a folder"):
        write_file(tmp_path / "new", "x")


def test_an_imported_pack_is_never_written_through_a_link(capsys, tmp_path):
    config = Path(__file__).parent / "hostile" / "importer" / "good.json"
    packs = tmp_path / "packs"
    packs.mkdir()
    precious = tmp_path / "precious.yaml"
    precious.write_bytes(b"mine: true\n")
    (packs / "x.yaml").symlink_to(precious)
    for extra in ((), ("--force",)):
        code, _, err = run(capsys, "import", "hf", str(config), "--id", "x", "--out",
                           str(packs), "--no-plugins", *extra)
        assert code == 2 and err == (f"fitproof: error: {packs}/x.yaml is a symbolic link; "
                                     "fitproof does not write through links\n")
    assert precious.read_bytes() == b"mine: true\n"


# --- how big before it starts ------------------------------------------------------------

def test_a_sweep_past_the_limit_is_refused_before_anything_is_evaluated(capsys, monkeypatch):
    monkeypatch.setattr(sweep_module, "SWEEP_LIMIT", 8)
    monkeypatch.setattr(sweep_module, "Batch", None)  # evaluating anything would fail
    code, out, err = run(capsys, "sweep", "--no-plugins", "--models", "qwen3-8b,gpt-oss-20b",
                         "--on", "rtx-4090", "--context", "4K,8K,16K,32K,64K")
    assert (code, out) == (2, "")
    assert err == ("fitproof: error: this sweep has 10 scenarios, over fitproof's limit of 8; "
                   "pass --yes to go ahead, or narrow --models, --on, --quant, --context, "
                   "--batch or --gpus\n")


def test_yes_runs_a_sweep_past_the_limit_and_progress_starts_at_zero(capsys, monkeypatch,
                                                                      packs):
    monkeypatch.setattr(sweep_module, "SWEEP_LIMIT", 8)
    code, out, err = run(capsys, "sweep", "--no-plugins", "--models", "qwen3-8b,gpt-oss-20b",
                         "--on", "rtx-4090", "--context", "4K,8K,16K,32K,64K", "--yes")
    assert (code, err) == (0, "") and len(out.splitlines()) == 1 + 10
    seen: list[tuple[int, int]] = []
    fitproof.api.sweep(packs, models=["qwen3-8b"], hardware=["rtx-4090", "rtx-3090"],
                       progress=lambda done, total: seen.append((done, total)))
    assert seen[0] == (0, 2) and seen[-1] == (2, 2)


def test_a_site_past_the_limit_is_refused_before_anything_is_built(capsys, tmp_path,
                                                                   monkeypatch):
    monkeypatch.setattr(site_module, "SITE_PAGE_LIMIT", PAGES - 1)
    monkeypatch.setattr(site_module, "site_data", None)  # building anything would fail
    code, out, err = build(capsys, tmp_path / "site")
    assert (code, out) == (2, "")
    assert err == (f"fitproof: error: this site has {PAGES} pages, over fitproof's limit of "
                   f"{PAGES - 1}; pass --yes to go ahead, or narrow --models, --on or --lang\n")
    assert list(tmp_path.iterdir()) == []


def test_yes_builds_a_site_past_the_limit_and_the_count_is_the_pages_written(
        capsys, tmp_path, monkeypatch, packs):
    monkeypatch.setattr(site_module, "SITE_PAGE_LIMIT", PAGES - 1)
    code, out, _ = run(capsys, *SITE, "--lang", "en,en", "--out", str(tmp_path / "site"),
                       "--yes")
    assert code == 0 and out.startswith(f"wrote {PAGES} pages")  # a language named twice once
    assert len(list((tmp_path / "site").rglob("*.html"))) == PAGES
    seen: list[tuple[int, int]] = []
    fitproof.api.site(packs, str(tmp_path / "again"), models=["qwen3-8b"],
                      hardware=["rtx-4090"], languages=["en"], yes=True,
                      progress=lambda done, total: seen.append((done, total)))
    assert seen == [(0, 1), (1, 1)]


# --- the marker is a manifest ------------------------------------------------------------

def listing(folder: Path) -> list[str]:
    """Every file and folder under ``folder`` but the marker, relative, sorted as walked."""
    found = []
    for root, dirs, names in os.walk(folder):
        dirs.sort()
        found += [os.path.relpath(os.path.join(root, n), folder) for n in sorted(dirs + names)]
    return [name for name in found if name != MARKER]


def test_the_marker_lists_every_file_and_folder_the_build_wrote(capsys, tmp_path):
    site = tmp_path / "site"
    assert build(capsys, site)[0] == 0
    names = listing(site)
    assert {"assets", "assets/data.js", "en", "en/qwen3-8b", "index.html"} <= set(names)
    assert (site / MARKER).read_bytes() == _HEADER + "".join(f"{n}\n" for n in names).encode()
    assert build(capsys, site)[0] == 0  # the manifest is fitproof's: rebuilt whole
    assert (site / MARKER).read_bytes() == _HEADER + "".join(f"{n}\n" for n in names).encode()


def test_a_forged_marker_does_not_make_a_folder_fitproofs(capsys, tmp_path):
    refusal = "is not empty and not a site fitproof built (its .fitproof-site is not fitproof's)"
    for forged in (b"", b"fitproof\n", b"This folder is a site fitproof built; `fitproof site` "
                   b"replaces it whole.\n", _HEADER[:-1], b"x\n" + _HEADER + b"thesis.txt\n"):
        folder = tmp_path / "out"
        folder.mkdir()
        (folder / MARKER).write_bytes(forged)
        (folder / "thesis.txt").write_bytes(b"four years of work\n")
        before = contents(folder)
        code, out, err = build(capsys, folder)
        assert (code, out) == (2, "")
        assert err == (f"fitproof: error: {folder} {refusal}; give an empty or new folder, or "
                       "pass --force to write into it\n")
        assert contents(folder) == before
        assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]
        code, _, err = build(capsys, folder, "--force")  # written into, nothing deleted
        assert (code, err) == (0, "")
        assert (folder / "thesis.txt").read_bytes() == b"four years of work\n"
        assert (folder / MARKER).read_bytes() == forged
        assert (folder / "en/qwen3-8b/rtx-4090.html").is_file()
        for path in sorted(folder.rglob("*"), reverse=True):
            path.rmdir() if path.is_dir() else path.unlink()
        folder.rmdir()


def test_a_site_holding_what_no_build_wrote_is_not_replaced(capsys, tmp_path):
    """A file or folder added to a built site, or a site copied with its marker into a
    folder of one's own (cp -r site/. docs/), is refused: a rebuild deletes only what the
    manifest lists."""
    site = tmp_path / "site"
    assert build(capsys, site)[0] == 0
    for added in ("notes.txt", "en/qwen3-8b/draft.html", "drafts"):
        path = site / added
        path.mkdir() if added == "drafts" else path.write_bytes(b"mine\n")
        before = contents(site)
        code, out, err = build(capsys, site)
        assert (code, out) == (2, "")
        assert err == (f"fitproof: error: {site} holds files fitproof did not write (e.g. "
                       f"{site}/{added}); pass --force to write into it, deleting nothing, "
                       "or move them out\n")
        assert contents(site) == before and path.exists()
        assert sorted(p.name for p in tmp_path.iterdir()) == ["site"]
        path.rmdir() if added == "drafts" else path.unlink()
    (site / "notes.txt").write_bytes(b"mine\n")
    code, _, err = run(capsys, *SITE[:5], "rtx-3090", *SITE[6:], "--out", str(site), "--force")
    assert (code, err) == (0, "")
    assert (site / "notes.txt").read_bytes() == b"mine\n"  # --force deletes nothing
    assert (site / "en/qwen3-8b/rtx-3090.html").is_file()
    assert (site / "en/qwen3-8b/rtx-4090.html").is_file()
    assert build(capsys, site)[0] == 2  # still refused: notes.txt is no build's


# --- temporary siblings ------------------------------------------------------------------

def test_temporary_names_are_short_and_found_by_the_same_definition(capsys, tmp_path):
    names = {_temp_name() for _ in range(50)}
    assert len(names) == 50 and all(_TEMP.fullmatch(n) and len(n) < 40 for n in names)
    file_name = "a" * 251 + ".csv"  # 255 bytes: the longest a name may be
    code, out, _ = run(capsys, "sweep", "--no-plugins", "--models", "qwen3-8b", "--on",
                       "rtx-4090")
    assert code == 0
    assert run(capsys, "sweep", "--no-plugins", "--models", "qwen3-8b", "--on", "rtx-4090",
               "--out", str(tmp_path / file_name)) == (0, "", "")
    assert (tmp_path / file_name).read_bytes() == out.encode()
    folder = tmp_path / ("b" * 255)
    code, _, err = build(capsys, folder)
    assert (code, err) == (0, "") and (folder / "en/qwen3-8b/rtx-4090.html").is_file()
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([file_name, folder.name])


def test_a_killed_builds_folder_of_either_naming_is_removed(capsys, tmp_path):
    gone = [tmp_path / ".site.fitproof-999999999-slccqj3_",  # tempfile.mkdtemp's, earlier
            tmp_path / ".fp-999999999-0123456789ab.tmp"]     # fitproof's own now
    running = tmp_path / ".fp-1-0123456789ab.tmp"  # pid 1 lives: not ours to remove
    for folder in (*gone, running):
        (folder / "en").mkdir(parents=True)
        (folder / "en" / "index.html").write_bytes(b"half\n")
    assert build(capsys, tmp_path / "site")[0] == 0
    assert not any(folder.exists() for folder in gone)
    assert (running / "en" / "index.html").read_bytes() == b"half\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == [running.name, "site"]


# --- the working folder, links above --out, an existing --out FILE ----------------------

def test_the_working_folder_and_those_holding_it_are_never_a_site_folder(capsys, tmp_path,
                                                                        monkeypatch):
    here = tmp_path / "work" / "here"
    here.mkdir(parents=True)
    (here / "notes.txt").write_bytes(b"mine\n")
    monkeypatch.chdir(here)
    for given in (".", "..", str(here), str(tmp_path / "work"), "./"):
        for extra in ((), ("--force",)):
            code, out, err = build(capsys, Path(given), *extra)
            assert (code, out) == (2, "")
            assert err == (f"fitproof: error: {Path(given)} is the working folder or holds it; "
                           "give the site a folder of its own\n")
    (tmp_path / "empty").mkdir()
    monkeypatch.chdir(tmp_path / "empty")
    assert build(capsys, Path("."))[0] == 2  # empty: still never replaced
    assert Path.cwd() == tmp_path / "empty" and list(Path.cwd().iterdir()) == []
    assert contents(tmp_path) == {"work/here/notes.txt": b"mine\n"}
    assert build(capsys, Path("site"))[0] == 0  # a folder inside the working folder is fine
    assert (tmp_path / "empty/site/index.html").is_file()


def test_links_among_the_folders_above_out_are_the_users_path(capsys, tmp_path):
    """As macOS's /tmp (a link to /private/tmp): written at the resolved place; what
    fitproof creates or replaces is never a link."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (tmp_path / "linkdir").symlink_to(elsewhere)
    code, rows, _ = run(capsys, "sweep", "--no-plugins", "--models", "qwen3-8b", "--on",
                        "rtx-4090")
    assert code == 0
    assert run(capsys, "sweep", "--no-plugins", "--models", "qwen3-8b", "--on", "rtx-4090",
               "--out", str(tmp_path / "linkdir" / "rows.csv")) == (0, "", "")
    assert (elsewhere / "rows.csv").read_bytes() == rows.encode()
    assert not (elsewhere / "rows.csv").is_symlink()
    config = Path(__file__).parent / "hostile" / "importer" / "good.json"
    code, out, err = run(capsys, "import", "hf", str(config), "--id", "x", "--out",
                         str(tmp_path / "linkdir"), "--no-plugins")
    assert (code, out, err) == (0, f"wrote {tmp_path}/linkdir/x.yaml\n", "")
    assert run(capsys, "import", "hf", str(config), "--id", "x", "--out",
               str(tmp_path / "direct"), "--no-plugins")[0] == 0
    assert (elsewhere / "x.yaml").read_bytes() == (tmp_path / "direct" / "x.yaml").read_bytes()
    assert not (elsewhere / "x.yaml").is_symlink()
    assert build(capsys, tmp_path / "linkdir" / "site")[0] == 0
    assert not (elsewhere / "site").is_symlink() and (elsewhere / "site" / MARKER).is_file()
    assert sorted(p.name for p in elsewhere.iterdir()) == ["rows.csv", "site", "x.yaml"]


def test_an_existing_out_file_is_replaced_only_with_force(capsys, tmp_path):
    target = tmp_path / "acme-x1-48gb.yaml"
    target.write_bytes(b"kind: hardware\nid: acme-x1-48gb\n")
    sweep = ["sweep", "--no-plugins", "--models", "qwen3-8b", "--on", "rtx-4090"]
    formats = [(), ("--format", "jsonl")]
    if importlib.util.find_spec("pyarrow") is not None:
        formats.append(("--format", "parquet"))
    for fmt in formats:
        code, out, err = run(capsys, *sweep, *fmt, "--out", str(target))
        assert (code, out) == (2, "")
        assert err == f"fitproof: error: {target} exists; pass --force to overwrite it\n"
        assert target.read_bytes() == b"kind: hardware\nid: acme-x1-48gb\n"
    code, rows, _ = run(capsys, *sweep)
    assert run(capsys, *sweep, "--out", str(target), "--force") == (0, "", "")
    assert target.read_bytes() == rows.encode()
    assert sorted(p.name for p in tmp_path.iterdir()) == [target.name]
    if os.path.exists("/dev/null"):  # a device is written as it is, --force or not
        assert run(capsys, *sweep, "--out", "/dev/null") == (0, "", "")
