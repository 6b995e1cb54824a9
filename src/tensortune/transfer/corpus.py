"""The pretrained prior for an empty database: a corpus of records measured on this kind of machine.

A corpus holds the trial records of a fixed set of conv and dense shapes (chosen apart from the
evaluation layers L1-L8 and from the zoo models' shapes), tuned by ``tensortune corpus build`` on one
machine with one measurement protocol, and the machine and protocol they were measured with. The
package ships one a CPU (``transfer/data/corpus-llvm-<LLVM CPU name>.json.gz``); :func:`default_corpus`
loads this CPU's, or, on a CPU none was measured on, the nearest one (:func:`nearest_cpu`; a foreign prior, weighed down like any
record of another CPU).

A :class:`Corpus` answers the read side of a records storage (``tasks``, ``count_task``, ``records``),
so :meth:`TransferPrior.from_storage` reads it as it reads a database. Its sources carry
``prior_weight``: ``1 / (1 + n / CORPUS_FADE)`` where ``n`` is the number of records the user's own
database already gives the task's prior, so it is the whole prior of an empty database and fades as
the user's records arrive (on top of the fade every source gets as the task's own outcomes arrive).
Records measured on another CPU are a prior too: their weight is cut like any foreign source's.

TIR tasks (the functions of a whole model) need their task file to be rebuilt: the corpus carries
each task file and writes it into the task directory when missing (the file is checked against its
content key when it is loaded, like every task file).
"""

from __future__ import annotations

import gzip
import json
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

from tensortune.core.targets import cpu_label_features, fp32_vector_lanes
from tensortune.storage.records import TuningRecord
from tensortune.workloads.tir import TirWorkload, task_dir

FORMAT = "tensortune-corpus/1"
CORPUS_FADE = 512.0  # the corpus weighs 1/(1 + n/CORPUS_FADE), n = the user's own records in the prior
SHIPPED_PREFIX, SHIPPED_SUFFIX = "corpus-llvm-", ".json.gz"  # corpus-llvm-znver5.json.gz


class CorpusError(ValueError):
    """A corpus file that cannot be read (its reason in the message)."""


@dataclass
class CorpusTask:
    task_key: str
    target_key: str
    name: str
    records: list[TuningRecord]
    task_file: dict[str, Any] | None = None  # a TIR task's file (name, kind, flops, mod), else None


@dataclass
class Corpus:
    """Records of a fixed set of shapes, the machine and protocol they were measured with."""

    tasks_: list[CorpusTask]
    machine: str  # "CPU model (LLVM CPU name)", as records name their device
    protocol: dict[str, Any] = field(default_factory=dict)
    created: str = ""
    command: str = ""
    path: str = ""

    # ------------------------------------------------------------ the read side of a storage
    def tasks(self) -> list[tuple[str, str, str]]:
        return [(t.task_key, t.target_key, t.name) for t in self.tasks_]

    def count_task(self, task_key: str, target_key: str) -> int:
        return sum(len(t.records) for t in self.tasks_ if (t.task_key, t.target_key) == (task_key, target_key))

    def records(self, task_key: str | None = None, target_key: str | None = None, run_id: str | None = None,
                kind: str | None = None) -> list[TuningRecord]:
        out = []
        for t in self.tasks_:
            if task_key is not None and t.task_key != task_key or target_key is not None and t.target_key != target_key:
                continue
            out += [r for r in t.records if (run_id is None or r.run_id == run_id) and (kind is None or r.kind == kind)]
        return out

    @property
    def n_records(self) -> int:
        return sum(len(t.records) for t in self.tasks_)

    def templates(self) -> set[str]:
        """The templates its tasks were measured with (a task key's part before ``|``)."""
        return {t.task_key.split("|", 1)[0] for t in self.tasks_}

    def missing_templates(self, templates: Iterable[str | None]) -> dict[str, int]:
        """Of the given tasks' templates (one entry per task; ``None`` for a task without one), those this corpus
        holds no records of, with how many tasks use each, most first: such tasks start with no prior from the
        corpus (stop 59: the ``znver3`` and ``znver4`` corpora predated the Winograd template until stops 70 and 91, so
        on a CPU that took them VGG-16's eight Winograd convs learned only within the run)."""
        from tensortune.transfer.prior import NO_TRANSFER

        have = self.templates()
        counts: dict[str, int] = {}
        for t in templates:
            if t is not None and t not in NO_TRANSFER and t not in have:
                counts[t] = counts.get(t, 0) + 1
        return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))

    def describe(self) -> str:
        return (f"corpus {os.path.basename(self.path) or '(in memory)'}: {self.n_records} records of "
                f"{len(self.tasks_)} tasks measured on {self.machine}")

    # ------------------------------------------------------------ task files
    def install_task_files(self, directory: str | None = None) -> int:
        """Write the TIR task files the corpus carries into the task directory (those missing);
        returns how many were written."""
        directory = directory or task_dir()
        n = 0
        for t in self.tasks_:
            wl_key = t.task_key.split("|", 1)[-1]
            if t.task_file is None or not wl_key.startswith("tir:"):
                continue
            path = os.path.join(directory, os.path.basename(TirWorkload(wl_key[4:]).path))
            if os.path.exists(path):
                continue
            os.makedirs(directory, exist_ok=True)
            tmp = f"{path}.{os.getpid()}.tmp"
            with open(tmp, "w") as f:
                json.dump(t.task_file, f)
            os.replace(tmp, path)
            n += 1
        return n

    # ------------------------------------------------------------ files
    def to_json(self) -> dict[str, Any]:
        return {"format": FORMAT, "machine": self.machine, "protocol": self.protocol, "created": self.created,
                "command": self.command,
                "tasks": [{"task_key": t.task_key, "target_key": t.target_key, "name": t.name,
                           "task_file": t.task_file, "records": [_slim(r) for r in t.records]} for t in self.tasks_]}

    def save(self, path: str) -> int:
        """Write the corpus (gzip JSON), atomically; returns the file's size in bytes."""
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        tmp = f"{path}.{os.getpid()}.tmp"
        with gzip.open(tmp, "wt", compresslevel=9) as f:
            json.dump(self.to_json(), f, separators=(",", ":"))
        os.replace(tmp, path)
        self.path = path
        return os.path.getsize(path)

    @classmethod
    def load(cls, path: str) -> Corpus:
        try:
            with gzip.open(path, "rt") as f:
                d = json.load(f)
        except FileNotFoundError:
            raise CorpusError(f"no corpus file {path}") from None
        except (OSError, EOFError, json.JSONDecodeError, UnicodeDecodeError) as e:
            raise CorpusError(f"corpus file {path} is unreadable ({e})") from None
        if not isinstance(d, dict) or d.get("format") != FORMAT:
            raise CorpusError(f"{path} is not a tensortune corpus (format {FORMAT} expected)")
        try:
            tasks = [CorpusTask(t["task_key"], t["target_key"], t.get("name", ""),
                                [TuningRecord.from_json({**r, "task_key": t["task_key"], "target_key": t["target_key"],
                                                         "task_name": t.get("name", "")})
                                 for r in t["records"]], t.get("task_file")) for t in d["tasks"]]
        except (KeyError, TypeError, ValueError) as e:
            raise CorpusError(f"corpus file {path} has a malformed task or record ({e})") from None
        return cls(tasks, str(d.get("machine", "")), dict(d.get("protocol") or {}), str(d.get("created", "")),
                   str(d.get("command", "")), path)

    @classmethod
    def from_storage(cls, storage: Any, machine: str, *, protocol: dict[str, Any] | None = None, created: str = "",
                     command: str = "", keys: Iterable[tuple[str, str]] | None = None) -> Corpus:
        """The trial records of ``keys`` (default: every task) of a database, with their TIR task files."""
        wanted = None if keys is None else set(keys)
        tasks = []
        for task_key, target_key, name in storage.tasks():
            if wanted is not None and (task_key, target_key) not in wanted:
                continue
            recs = [r for r in storage.records(task_key, target_key) if r.kind == "trial"]
            if not recs:
                continue
            tasks.append(CorpusTask(task_key, target_key, name, recs, _task_file(task_key)))
        return cls(tasks, machine, protocol or {}, created, command)


def _slim(r: TuningRecord) -> dict[str, Any]:
    """A record without what the corpus does not need (messages, timings of the build, the task keys
    its task entry already holds)."""
    d = r.to_json()
    for k in ("task_key", "target_key", "message", "build_seconds", "run_seconds", "task_name"):
        d.pop(k, None)
    d["extra"] = {k: v for k, v in (r.extra or {}).items() if k == "device"}
    return d


def _task_file(task_key: str) -> dict[str, Any] | None:
    wl_key = task_key.split("|", 1)[1] if "|" in task_key else ""
    if not wl_key.startswith("tir:"):
        return None
    path = TirWorkload(wl_key[4:]).path
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, json.JSONDecodeError):
        return None


def _data_dir() -> str:
    return str(resources.files("tensortune.transfer") / "data")


def corpus_file_for(cpu: str) -> str:
    """Where the package keeps (or ``corpus build`` writes) the corpus of LLVM CPU name ``cpu``."""
    if not cpu or any(c in cpu for c in "/\\ ") or cpu.startswith("."):
        raise CorpusError(f"not an LLVM CPU name: {cpu!r}")
    return os.path.join(_data_dir(), f"{SHIPPED_PREFIX}{cpu}{SHIPPED_SUFFIX}")


def shipped_corpora() -> dict[str, str]:
    """The corpus files this install ships, by the LLVM CPU name they were measured on."""
    try:
        names = sorted(os.listdir(_data_dir()))
    except OSError:
        return {}
    return {n[len(SHIPPED_PREFIX):-len(SHIPPED_SUFFIX)]: os.path.join(_data_dir(), n) for n in names
            if n.startswith(SHIPPED_PREFIX) and n.endswith(SHIPPED_SUFFIX)}


def nearest_cpu(cpu: str, candidates: Iterable[str], features: Iterable[str] | None = None) -> str | None:
    """Of ``candidates`` (LLVM CPU names), the one nearest ``cpu``: itself, else one with the same vector width
    (what a schedule's vector and channel-block sizes are made for), and of those the one whose LLVM feature set
    overlaps most (Jaccard: an Intel AVX-512 CPU is nearer another Intel one than an AMD one, Zen 2 nearer Zen 3
    than Zen 5), ties to the newest by name. None without candidates. ``features``: what ``cpu`` offers on this
    machine where that is less than its name implies (a VM hiding AVX-512 from a Zen 4): then ``cpu``'s own
    candidate is one more CPU to compare by them, not itself. A name may carry what its CPU lacked
    (``znver4-no-avx512-no-gfni``, :func:`~tensortune.core.targets.llvm_cpu_key`): it is compared by what it had."""
    names = sorted(set(candidates))
    if not names:
        return None
    if cpu in names and features is None:
        return cpu
    here = cpu_label_features(cpu) if features is None else frozenset(features)

    def nearness(name: str) -> tuple[bool, float, str]:
        there = cpu_label_features(name)
        jaccard = len(here & there) / len(here | there) if here | there else 0.0
        return fp32_vector_lanes(there) == fp32_vector_lanes(here), jaccard, name

    return max(names, key=nearness)


def default_corpus_path(cpu: str | None = None) -> str | None:
    """The shipped corpus a run on CPU ``cpu`` (default: this one; a key such as ``znver4-no-avx512-no-gfni``)
    uses: the one measured on that CPU (on a machine that lacks instruction sets its CPU name implies, the one
    measured on such a machine: ``corpus-llvm-znver4-no-avx512-no-gfni.json.gz``),
    else the one of the nearest CPU shipped by instruction set (:func:`nearest_cpu`; a foreign prior), None
    when the install ships none."""
    from tensortune.core.targets import host_missing_features, llvm_cpu_key, llvm_cpu_name

    shipped = shipped_corpora()
    features = None
    if cpu is None:
        if llvm_cpu_key() in shipped:  # measured on this kind of machine, what it lacks included
            return shipped[llvm_cpu_key()]
        cpu = llvm_cpu_name()
        missing = host_missing_features(cpu)
        features = cpu_label_features(cpu) - set(missing) if missing else None
    pick = nearest_cpu(cpu, shipped, features)
    return shipped[pick] if pick else None


def default_corpus(cpu: str | None = None) -> Corpus | None:
    """The shipped corpus for this CPU (see :func:`default_corpus_path`; its task files installed), None if
    this install has none."""
    path = default_corpus_path(cpu)
    if path is None:
        return None
    corpus = Corpus.load(path)
    corpus.install_task_files()
    return corpus
