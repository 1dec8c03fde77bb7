"""Kill a command with SIGKILL at chosen moments and check what it leaves behind.

The command under test is a parameter (`build` today; `add`, which changes an existing build, later): a loop
runs it again and again, kills each run at a random moment (or just as it starts writing its build), and
checks after every run that the build at `out` is readable and either untouched or wholly replaced.
"""

from __future__ import annotations

import hashlib
import itertools
import random
import signal
import subprocess
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from topic_explorer.pipeline.buildfolder.read import read_build

WRITING = "writing"  # a moment: as soon as the run's staging folder appears beside `out`


@dataclass
class KillLoop:
    """What happened over the loop: how each run ended, and anything left beside the build."""

    outcomes: list[str] = field(default_factory=list)  # per run: "killed, build untouched", ...
    moments: list[float | str] = field(default_factory=list)  # when each run was to be killed
    leftovers: list[str] = field(default_factory=list)

    def count(self, outcome: str) -> int:
        return self.outcomes.count(outcome)


def snapshot(folder: Path) -> dict[str, str]:
    """Every file under `folder` by relative path, with its SHA-256."""
    return {
        str(path.relative_to(folder)): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


def staging_of(out: Path) -> list[Path]:
    return sorted(out.parent.glob(f".{out.name}.partial-*"))


def run_and_kill(
    command: list[str], moment: float | str, out: Path, *, timeout: float = 900, **popen
) -> tuple[str, float]:
    """Start `command`; SIGKILL it `moment` seconds in, or once it is `WRITING`. ('killed' or 'finished', seconds):
    'finished' if it ended first, which it must have done successfully."""
    before = set(staging_of(out))
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, **popen)
    start = time.monotonic()
    while process.poll() is None and time.monotonic() - start < timeout:
        due = set(staging_of(out)) - before if moment == WRITING else time.monotonic() - start >= moment
        if due:
            process.send_signal(signal.SIGKILL)
            process.wait()
            return "killed", time.monotonic() - start
        time.sleep(0.002 if moment == WRITING else 0.01)
    if process.poll() is None:
        process.kill()
        raise TimeoutError(f"{command} ran for more than {timeout:.0f} s")
    stderr = process.stderr.read().decode(errors="replace")
    assert process.returncode == 0, f"{command} failed: {stderr}"
    return "finished", time.monotonic() - start


def kill_loop(
    make_command: Callable[[int], list[str]],
    out: Path,
    moments: Iterable[float | str],
    *,
    run_seconds: float,
    kills: int | None = None,
    **popen,
) -> KillLoop:
    """Run `make_command(i)` for each moment in turn, killing run i at `moments[i]`, a fraction of a run's length
    (`run_seconds` at first, then the length of the latest run that finished first), or WRITING; stop once `kills`
    runs were killed. After each run the build at `out` must be readable, and a killed run must have left it
    untouched or wholly replaced by its new build (killed after the swap), never a mix."""
    loop = KillLoop()
    read_build(out)
    before = snapshot(out)
    for i, moment in enumerate(moments):
        at = moment if moment == WRITING else round(moment * run_seconds, 2)
        ended, seconds = run_and_kill(make_command(i), at, out, **popen)
        if ended == "finished":
            run_seconds = seconds  # runs got quicker (a warm cache, a quieter machine): aim within them
        read_build(out)  # readable, whatever happened
        after = snapshot(out)
        if ended == "killed" and after != before:
            assert set(after) == set(before), f"run {i}: files came or went without a whole new build: {after}"
            assert after["manifest.json"] != before["manifest.json"], f"run {i}: tables changed, manifest did not"
        loop.moments.append(at)
        loop.outcomes.append(f"{ended}, build {'untouched' if after == before else 'replaced'}")
        before = after
        if kills is not None and sum(o.startswith("killed") for o in loop.outcomes) == kills:
            break
    loop.leftovers = sorted(p.name for p in out.parent.iterdir() if p.name.startswith(f".{out.name}."))
    return loop


def random_moments(seed: int, writing_every: int = 0) -> Iterator[float | str]:
    """Fractions of a run's length, uniform in [0, 1), without end; every `writing_every`-th one is WRITING."""
    rng = random.Random(seed)
    for n in itertools.count(1):
        fraction = rng.random()
        yield WRITING if writing_every and n % writing_every == 0 else fraction
