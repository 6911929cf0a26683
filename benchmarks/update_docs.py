"""Rewrite the command outputs README.md shows and the tests compare with the commands:
the quick start card, the `fitproof validate` tables, the `solve capacity` example, the cross-validation of
benchmarks/fit_speed.py and benchmarks/fit_serving.py, the values in the Python API example, and the lines of
CONTRIBUTING.md's walkthrough whose figures a refit moves. Run it after
`python benchmarks/fit_speed.py --write`.

Run: python benchmarks/update_docs.py
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"


def output(*argv: str) -> str:
    done = subprocess.run([sys.executable, *argv], capture_output=True, text=True, cwd=ROOT,
                          check=True)
    return done.stdout


def fitproof(*argv: str) -> str:
    return output("-m", "fitproof", *argv)


def replace_after(text: str, command: str, new: str) -> str:
    """``text`` with the output shown after ``$ command`` replaced by ``new``."""
    start = text.index(f"$ {command}\n") + len(f"$ {command}\n")
    ends = [i for i in (text.find("\n\n$ ", start), text.find("\n```", start)) if i >= 0]
    return text[:start] + new.strip() + text[min(ends):]


def python_example(text: str) -> str:
    """The values the Python API example of README shows in its comments."""
    sys.path.insert(0, str(ROOT))
    import fitproof

    registry = fitproof.load_registry(plugins=False)
    total = fitproof.estimate("qwen3.5-35b-a3b", "arc-pro-b60", context=32768,
                              registry=registry).value("total_gib")
    moe = fitproof.estimate("qwen3-30b-a3b", "rtx-3060-12gb", cpu_moe=24,
                            host="desktop-ddr4-3200-2ch", registry=registry)
    speeds = ", ".join(f"{moe.value(n):.1f}" for n in ("decode_tps", "decode_tps_low",
                                                       "decode_tps_high"))
    text = re.sub(r'(result\.value\("total_gib"\)\s+# )[0-9.]+', rf"\g<1>{total}", text)
    return re.sub(r'(moe\.value\("decode_tps_high"\)  # )[0-9., ]+\n', rf"\g<1>{speeds}\n", text)


def walkthrough_lines(text: str) -> str:
    """CONTRIBUTING.md with each shown line of its walkthrough that the commands no longer
    print replaced by the printed line that starts like it (its first column or two)."""
    import os
    import tempfile

    sys.path.insert(0, str(ROOT))
    from tests.test_contributing import walkthrough

    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    env.pop("FITPROOF_PACK_PATH", None)
    with tempfile.TemporaryDirectory() as work:
        (Path(work) / "examples").symlink_to(ROOT / "examples")
        for command, shown in walkthrough():
            printed = subprocess.run(["bash", "-c", command], cwd=work, env=env, text=True,
                                     capture_output=True).stdout.splitlines()
            for line in shown:
                if line == "..." or line in printed:
                    continue
                label = re.split(r"\s{2,}", line.strip())[0]
                same = [p for p in printed if re.split(r"\s{2,}", p.strip())[0] == label]
                if len(same) == 1:
                    text = text.replace(f"\n{line}\n", f"\n{same[0]}\n", 1)
    return text


def main() -> int:
    text = README.read_text(encoding="utf-8")
    card = fitproof("estimate", "qwen3.5-35b-a3b", "--on", "arc-pro-b60", "--no-plugins")
    text = replace_after(text, "fitproof estimate qwen3.5-35b-a3b --on arc-pro-b60",
                         card.split("\n\nEvery number has a derivation")[0])
    text = replace_after(text, "fitproof validate",
                         fitproof("validate", "--no-plugins").split("\nWorst cases")[0])
    text = replace_after(text, "fitproof validate --profile seed",
                         fitproof("validate", "--no-plugins", "--profile", "seed")
                         .split("\nWorst cases")[0])
    text = replace_after(text, "python benchmarks/fit_speed.py",
                         output("benchmarks/fit_speed.py").split("\n\nFitted on every row")[0])
    text = replace_after(text, "python benchmarks/fit_serving.py",
                         output("benchmarks/fit_serving.py"))
    capacity = ("solve", "capacity", "llama-3.1-8b-instruct", "--on", "h100-80gb-sxm",
                "--engine", "vllm", "--quant", "BF16", "--rate", "20", "--isl", "2048",
                "--osl", "512", "--ttft", "1s", "--tpot", "50ms", "--depth", "0")
    answer = fitproof(*capacity, "--no-plugins").splitlines()
    # README elides the question's description (the line below the answer)
    answer[1] = "  ..."
    text = replace_after(text, "fitproof " + " ".join(capacity),
                         "\n".join(answer).split("\n\n")[0])
    text = python_example(text)
    README.write_text(text, encoding="utf-8")
    print(f"rewrote the command outputs in {README.relative_to(ROOT)}")
    contributing = ROOT / "CONTRIBUTING.md"
    contributing.write_text(walkthrough_lines(contributing.read_text(encoding="utf-8")),
                            encoding="utf-8")
    print(f"rewrote the walkthrough outputs in {contributing.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
