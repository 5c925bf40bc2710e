"""The tuning database: measured layer times, kept between compiles in one JSON file.

    {"format": "xnnc-tuning-1",
     "entries": {"<cpu>|<xnnpack>|threads=2|conv f32 1x1x26x512->256 k1x7 d1x1 p0,0,0,6|r2":
                 {"choice": "direct", "times_ms": {"direct": 1.21, "gemm": 1.40}}}}

A key names the CPU (model name and ISA features), the XNNPACK build, the thread count and
the layer signature, so a database copied to another machine or kept across an XNNPACK
upgrade only misses; past its first revision, a decision's keys end in it (`|r2`), so times
measured before a rewrite built a form differently miss too (`cost.forms`: `Form.revision`).
Location: the `tuning_db` option, else `$XNNC_TUNING_DB`, else
`$XDG_CACHE_HOME/xnnc/tuning.json` (`~/.cache/xnnc/tuning.json`).

Writes are atomic (a temporary file renamed over the database) and merge under an exclusive
lock (`<db>.lock`), so two compiles writing at once both keep their entries. A file that is
not a database of this format (corrupt, truncated, foreign) costs one `TuningDatabaseWarning`
line: it is ignored and rewritten. Entries that do not parse are dropped. An unwritable
location warns once and the compile goes on: the database only saves time.
"""

from __future__ import annotations

import contextlib
import fcntl
import importlib.metadata
import importlib.util
import json
import math
import os
import re
import tempfile
import warnings
from functools import cache
from pathlib import Path
from typing import Any

from xnnc.cost.forms import KEY_FORMS, LAYER_FORMS, REVISIONS
from xnnc.errors import TuningDatabaseWarning
from xnnc.target import Target

FORMAT = "xnnc-tuning-1"
ENV = "XNNC_TUNING_DB"


def _stat(path: Path) -> tuple[int, int] | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return st.st_mtime_ns, st.st_size


def default_path() -> Path:
    """`$XNNC_TUNING_DB`, else the user's cache directory."""
    if os.environ.get(ENV):
        return Path(os.environ[ENV])
    cache_home = os.environ.get("XDG_CACHE_HOME") or os.path.join(Path.home(), ".cache")
    return Path(cache_home) / "xnnc" / "tuning.json"


@cache
def cpu_model() -> str:
    """/proc/cpuinfo's model name ("unknown CPU" where there is none)."""
    with contextlib.suppress(OSError):
        with open("/proc/cpuinfo") as f:
            for line in f:
                key, _, value = line.partition(":")
                if key.strip() in ("model name", "Hardware", "CPU part"):
                    return value.strip()
    return "unknown CPU"


@cache
def xnnpack_build() -> str:
    """The XNNPACK the extended runtime loads: the executorch wheel's version and the size of
    its XNNPACK library (a rebuilt library of the same version differs in size)."""
    spec = importlib.util.find_spec("executorch")
    try:
        version = importlib.metadata.version("executorch")
    except importlib.metadata.PackageNotFoundError:
        version = "?"
    size = "?"
    if spec is not None and spec.submodule_search_locations:
        lib = Path(spec.submodule_search_locations[0]) / "lib/libexecutorch_backend_xnnpack.so"
        with contextlib.suppress(OSError):
            size = str(lib.stat().st_size)
    return f"executorch {version} xnnpack.so {size}"


def key(target: Target, layer_key: str) -> str:
    """The database key of a layer on `target` (this machine's CPU and XNNPACK), ending in
    its form's revision (`cost.forms`) past the first."""
    cpu = "+".join([target.arch, *sorted(target.features)])
    revision = REVISIONS.get(KEY_FORMS.get(layer_key.split(" ", 1)[0], ""), 1)
    tail = f"|r{revision}" if revision > 1 else ""
    return f"{cpu_model()} {cpu}|{xnnpack_build()}|threads={target.threads}|{layer_key}{tail}"


def _valid_key(key: Any, entry: Any) -> bool:
    """An entry of a known form, timed for its decision's current revision (a key without
    one is revision 1): a stale one is dropped, and the next save leaves it out."""
    parts = key.split("|") if isinstance(key, str) else []
    if len(parts) < 2:
        return False
    layer_key, revision = parts[-1], 1
    if re.fullmatch(r"r\d+", layer_key):
        layer_key, revision = parts[-2], int(layer_key[1:])
    form = KEY_FORMS.get(layer_key.split(" ", 1)[0])
    return revision == REVISIONS.get(form or "", 1) and _valid_entry(layer_key, entry)


def _valid_entry(layer_key: str, entry: Any) -> bool:
    """An entry of a known form: a choice among its forms, finite positive times."""
    form = KEY_FORMS.get(layer_key.split(" ", 1)[0])
    if form is None or not isinstance(entry, dict):
        return False
    choices, times = LAYER_FORMS[form].choices, entry.get("times_ms")
    if entry.get("choice") not in choices or not isinstance(times, dict):
        return False
    return entry["choice"] in times and all(
        c in choices and isinstance(t, (int, float)) and math.isfinite(t) and t > 0
        for c, t in times.items()
    )


class TuningDB:
    """The database at `path` (default: `default_path()`), read once; `put` entries and
    `save` them."""

    _open: dict[Path, tuple[tuple[int, int] | None, TuningDB]] = {}

    @classmethod
    def open(cls, path: str | os.PathLike | None = None) -> TuningDB:
        """The database at `path`, shared by the compiles of this process while the file is
        as this process last saw it (one read, one warning per compile and file)."""
        db_path = Path(path) if path is not None else default_path()
        seen = cls._open.get(db_path)
        if seen is not None and seen[0] == _stat(db_path):
            return seen[1]
        db = cls(db_path)
        cls._open[db_path] = (_stat(db_path), db)
        return db

    def __init__(self, path: str | os.PathLike | None = None):
        self.path = Path(path) if path is not None else default_path()
        self._entries = self._read(warn=True)
        self._new: dict[str, dict] = {}
        self._warned_write = False

    def get(self, key: str) -> dict | None:
        """{"choice": ..., "times_ms": {choice: ms}} or None."""
        return self._new.get(key) or self._entries.get(key)

    def put(self, key: str, choice: str, times_ms: dict[str, float]) -> None:
        self._new[key] = {"choice": choice, "times_ms": dict(times_ms)}

    def __len__(self) -> int:
        return len(self._entries.keys() | self._new.keys())

    def _read(self, warn: bool) -> dict[str, dict]:
        try:
            text = self.path.read_text()
        except FileNotFoundError:
            return {}
        except (OSError, UnicodeDecodeError) as e:
            problem = f"unreadable ({e.__class__.__name__})"
        else:
            try:
                data = json.loads(text)
            except ValueError:
                problem = "not JSON (corrupt or truncated?)"
            else:
                if isinstance(data, dict) and data.get("format") == FORMAT:
                    entries = data.get("entries")
                    if isinstance(entries, dict):
                        return {k: v for k, v in entries.items() if _valid_key(k, v)}
                    problem = "its entries are not a mapping"
                else:
                    marker = data.get("format") if isinstance(data, dict) else None
                    problem = f"format {marker!r}, not {FORMAT!r}"
        if warn:
            warnings.warn(
                f"tuning database {self.path}: {problem}; ignoring it, it will be rewritten",
                TuningDatabaseWarning,
                stacklevel=4,
            )
        return {}

    def save(self) -> None:
        """Merge the new entries into the file (re-read under the lock: another process may
        have written since) and replace it atomically. An unwritable location warns once."""
        if not self._new:
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with open(f"{self.path}.lock", "a") as lock:
                fcntl.flock(lock, fcntl.LOCK_EX)
                merged = {**self._read(warn=False), **self._new}
                self._write(merged)
        except OSError as e:
            if not self._warned_write:
                self._warned_write = True
                warnings.warn(
                    f"tuning database {self.path}: cannot write it ({e.strerror or e}); "
                    "tuning results are not kept",
                    TuningDatabaseWarning,
                    stacklevel=3,
                )
            return
        self._entries, self._new = merged, {}
        TuningDB._open[self.path] = (_stat(self.path), self)

    def _write(self, entries: dict[str, dict]) -> None:
        fd, tmp = tempfile.mkstemp(prefix=f".{self.path.name}.", dir=self.path.parent)
        try:
            with os.fdopen(fd, "w") as f:
                json.dump({"format": FORMAT, "entries": entries}, f, indent=1, sort_keys=True)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, self.path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
