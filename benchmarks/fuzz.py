"""Fuzz `xnn-opt` with mutated IR and random pipelines: every failure must be one line.

    python -m xnnc.benchmarks.fuzz --cases 5000 [--seed 0] [--zoo] [--save-bugs DIR]

Seeds are the lit tests' inputs (split at `// -----`, those that verify) and modules
imported from small models (`--zoo`: the example models too), at the `aten` level and
lowered to `xnn`, their weights in one `--weights` file. Each case mutates a seed (tokens
dropped, duplicated, swapped or replaced; the input cut short; numbers, shapes, element
types and op names changed, once or everywhere at once) and runs
`xnn-opt`'s main in-process with a random pipeline drawn from `xnnc.get_all_passes()` with
valid and invalid options. A case passes when main returns 0, or returns non-zero with one
line on stderr that says where (`file:line:col: error:`, or `xnn-opt: error:` naming the
pass, option or op). A bug is an exception escaping main, an `internal error`, a traceback,
a message of several lines or none, or a case that runs past its time limit.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import io
import os
import random
import re
import resource
import signal
import tempfile
import time
import typing
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

LIT_ROOT = Path(__file__).resolve().parent.parent / "lit_tests"
TOKEN = re.compile(
    r'"(?:[^"\\]|\\.)*"|[%^#!@]?[A-Za-z_][\w.$-]*|-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?|->|\s+|.'
)
NUMBERS = ["0", "1", "-1", "2", "3", "7", "64", "65537", "2147483648", "0.0", "-2.5", "1e40"]
DIMS = ["0", "1", "2", "3", "5", "8", "?", "65536", "2147483648"]
ELEMENT_TYPES = ["f32", "f16", "bf16", "i8", "i32", "i64", "i1", "f64", "index"]


@dataclass
class Outcome:
    kind: str  # "ok", "error" (a good one-line error) or "bug"
    message: str


@dataclass
class Report:
    cases: int = 0
    kinds: Counter = field(default_factory=Counter)
    bugs: dict[str, tuple[str, str]] = field(default_factory=dict)  # signature -> (case, argv)
    weights: dict[str, typing.Any] = field(default_factory=dict)  # the --weights of every case
    seconds: float = 0.0


# Seeds ----------------------------------------------------------------------------------------


def lit_seeds() -> list[str]:
    """The IR of every lit test, one module per `// -----` chunk, RUN/CHECK lines dropped."""
    seeds = []
    for path in sorted(LIT_ROOT.rglob("*.mlir")):
        if "Output" in path.parts:
            continue
        for chunk in path.read_text().split("// -----"):
            text = "\n".join(
                line for line in chunk.splitlines() if not line.lstrip().startswith("//")
            )
            if text.strip():
                seeds.append(text + "\n")
    return seeds


def model_seeds(zoo: bool = False) -> tuple[list[str], dict[str, typing.Any]]:
    """Small models imported into `aten` and lowered to `xnn`, weights elided: (texts, the
    weights' data by name, for `--weights`). `zoo` adds the example models (small)."""
    import numpy as np
    import torch
    import torch.nn as nn

    import xnnc
    from xnnc.pipeline.stages import lower

    class Block(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.conv = nn.Conv2d(3, 4, 3, padding=1)
            self.bn = nn.BatchNorm2d(4)
            self.up = nn.ConvTranspose2d(4, 2, 4, stride=2, padding=1)
            self.fc = nn.Linear(16, 5)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            y = torch.relu(self.bn(self.conv(nn.functional.pad(x, (1, 1, 1, 1)))))
            y = nn.functional.interpolate(self.up(y), scale_factor=2.0, mode="nearest")
            return self.fc(y.mean(dim=(2, 3)).repeat(1, 8)) + 1.0

    class Mlp(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.a, self.b = nn.Linear(6, 8), nn.Linear(8, 6)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            h = nn.functional.gelu(self.a(x.to(torch.bfloat16).float()))
            return torch.softmax(self.b(h), dim=-1).transpose(0, 1).reshape(3, 4)

    torch.manual_seed(0)
    examples = [(Block().eval(), (torch.randn(1, 3, 4, 4),)), (Mlp().eval(), (torch.randn(2, 6),))]
    if zoo:
        from xnnc.examples.models import MODELS

        examples += [make(small=True) for make in MODELS.values()]
    texts: list[str] = []
    weights: dict[str, typing.Any] = {}
    for i, (model, inputs) in enumerate(examples):
        module = xnnc.import_model(model, inputs)
        for level in (module, lower(module.clone())):
            text = xnnc.print_module(level)
            # Weight names are per model: keep them apart in the one --weights file.
            texts.append(text.replace('#xnnc.weight<"', f'#xnnc.weight<"m{i}.'))
        for name, blob in xnnc.weights_of(module).items():
            weights[f"m{i}.{name}"] = np.frombuffer(blob.raw(), dtype=np.uint8)
    return texts, weights


# Mutations ------------------------------------------------------------------------------------


def _mutate_tokens(rng: random.Random, tokens: list[str], vocabulary: list[str]) -> None:
    solid = [i for i, t in enumerate(tokens) if not t.isspace()]
    if not solid:
        return
    i = rng.choice(solid)
    action = rng.randrange(10)
    if action == 9:
        del tokens[i:]  # the input ends early
        return
    if action >= 7:
        # Everywhere at once, so types stay consistent: f32 -> bf16, 4x4 -> 5x3, 2 -> 3.
        k = rng.choice(solid)
        old = tokens[k]
        new = _mutate_shape(rng, old) if "x" in old or old in ELEMENT_TYPES else rng.choice(NUMBERS)
        if action == 8 and any(t in ELEMENT_TYPES for t in tokens):
            old = rng.choice([t for t in tokens if t in ELEMENT_TYPES])
            new = rng.choice(ELEMENT_TYPES)
        for j, t in enumerate(tokens):
            if t == old:
                tokens[j] = new
            elif old in ELEMENT_TYPES and t.endswith("x" + old):
                tokens[j] = t[: -len(old)] + new
        return
    if action == 0:
        del tokens[i]
    elif action == 1:
        tokens.insert(i, tokens[i])
    elif action == 2:
        j = rng.choice(solid)
        tokens[i], tokens[j] = tokens[j], tokens[i]
    elif action == 3:
        tokens[i] = rng.choice(vocabulary)
    elif action == 4:
        numbers = [k for k in solid if re.fullmatch(r"-?\d[\d.eE+-]*", tokens[k])]
        if numbers:
            tokens[rng.choice(numbers)] = rng.choice(NUMBERS)
    elif action == 5:
        types = [k for k in solid if tokens[k] in ELEMENT_TYPES or "x" in tokens[k]]
        if types:
            k = rng.choice(types)
            tokens[k] = _mutate_shape(rng, tokens[k])
    else:
        tokens.insert(i, rng.choice(vocabulary) + " ")


def _mutate_shape(rng: random.Random, token: str) -> str:
    """`2x3xf32` -> another shape or element type (dims dropped, added, changed)."""
    if token in ELEMENT_TYPES:
        return rng.choice(ELEMENT_TYPES)
    parts = token.split("x")
    k = rng.randrange(len(parts))
    choice = rng.randrange(3)
    if choice == 0 and len(parts) > 1:
        del parts[k]
    elif choice == 1:
        parts.insert(k, rng.choice(DIMS))
    else:
        parts[k] = rng.choice(DIMS + ELEMENT_TYPES)
    return "x".join(parts)


def mutate(rng: random.Random, text: str, vocabulary: list[str]) -> str:
    """`text` with 0 to 3 mutations (0 keeps a valid seed valid, to exercise the passes)."""
    tokens = TOKEN.findall(text)
    for _ in range(rng.choice((0, 0, 1, 1, 2, 3))):
        _mutate_tokens(rng, tokens, vocabulary)
    return "".join(tokens)


# Pipelines ------------------------------------------------------------------------------------

_BAD_VALUES = ["abc", "-1", "0", "1.5", "true", '"x y"', "1,2", "-0.5", "1e999", "nan", ""]
# Valid values of the string options, by option name.
_NAMES = {
    "mode": ["auto", "fp32", "native"],
    "fp16": ["auto", "fp32", "native"],
    "target": ["stock", "extended", "host", '"stock,threads=2"', '"extended,x86-64-avx2"'],
    "exclude": ['"aten.relu"', '"aten.convolution,aten.add"', '"aten.linear"'],
    "disable": ['"xnn-polyphase"', "canonicalize", '"fold-constants,xnn-layout"'],
    "disabled_patterns": ["FoldPadIntoConv", "xnn-layout", '"ComposeTransposes,FoldReshapes"'],
    "enabled_patterns": ["FoldPadIntoConv", "xnn-polyphase", "TransposeAsReshape"],
}


def _option_value(rng: random.Random, name: str, hint: typing.Any, bad: bool) -> str:
    if bad:
        return rng.choice(_BAD_VALUES + ["bogus", '"aten.nope"'])
    if hint is bool:
        return rng.choice(["true", "false"])
    if hint is int:
        return str(rng.choice([1, 2, 16, 1024, 1 << 20]))
    if hint is float:
        return rng.choice(["1.0", "2", "1.4", "100"])
    return rng.choice(_NAMES.get(name, ['""']))


def pipeline(rng: random.Random) -> str:
    """A random subset and order of the registered passes, some with options; one pipeline
    in five has an invalid option."""
    import xnnc

    passes = xnnc.get_all_passes()
    invalid = rng.random() < 0.2
    parts = []
    for name in rng.sample(sorted(passes), rng.randint(1, 4)):
        cls = passes[name]()
        hints = typing.get_type_hints(cls)
        options = []
        for f in dataclasses.fields(cls):
            if f.init and f.name != "name" and rng.random() < 0.3:
                bad = invalid and rng.random() < 0.5
                key = f.name.replace("_", "-") if rng.random() < 0.9 else f.name
                options.append(f"{key}={_option_value(rng, f.name, hints[f.name], bad)}")
        if invalid and rng.random() < 0.1:
            options.append("no-such-option=1")
        parts.append(f"{name}{{{' '.join(options)}}}" if options else name)
    return ",".join(parts)


# Running --------------------------------------------------------------------------------------


class _Timeout(BaseException):
    """Not an Exception: main's catch-all must not take it for an internal error."""


@contextlib.contextmanager
def _time_limit(seconds: int) -> Iterator[None]:
    def expire(signum: int, frame: typing.Any) -> None:
        raise _Timeout

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def _located(line: str, path: str) -> bool:
    """One of the shapes of a good error: file:line:col, the tool naming the problem, or an
    op (by name or loc) for IR built by a pass."""
    return bool(
        line.startswith((f"{path}:", "xnn-opt: error: "))
        and re.match(rf"{re.escape(path)}:\d+:\d+: error: \S|xnn-opt: error: \S", line)
        or re.match(r'(?:[a-z_]+\.[\w.]+|loc\(.*\)): error: \S', line)
    )  # fmt: skip


def run_case(path: str, text: str, argv: list[str], time_limit: int = 20) -> Outcome:
    """Run xnn-opt's main on `text` (written to `path`) and classify what it did."""
    from xnnc.tools.xnn_opt import main

    Path(path).write_text(text)
    out, err = io.StringIO(), io.StringIO()
    try:
        with (
            _time_limit(time_limit),
            contextlib.redirect_stdout(out),
            contextlib.redirect_stderr(err),
        ):
            code = main([path, *argv])
    except _Timeout:
        return Outcome("bug", f"timeout: no answer within {time_limit} s")
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else 1
    except BaseException as e:  # noqa: BLE001 - what escapes main is the bug we look for
        return Outcome("bug", f"escaped main: {type(e).__name__}: {str(e)[:200]}")
    message = err.getvalue().strip()
    if code == 0:
        return Outcome("ok", "")
    lines = message.splitlines()
    if len(lines) != 1 or "Traceback" in message or "internal error" in message:
        return Outcome("bug", message[:300] or f"exit code {code} and no message")
    if not _located(lines[0], path):
        return Outcome("bug", f"unlocated: {lines[0][:300]}")
    return Outcome("error", lines[0])


def _signature(message: str, path: str) -> str:
    """A bug's message without its numbers and file, so one bug counts once."""
    return re.sub(r"\d+", "N", message.replace(path, "FILE"))[:160]


def fuzz(
    cases: int, seed: int = 0, models: bool = True, time_limit: int = 20, zoo: bool = False
) -> Report:
    """Run `cases` random cases; returns the counts and one reproducer per distinct bug.
    `models`: seeds from two small models too; `zoo`: and from the example models."""
    import numpy as np

    rng = random.Random(seed)
    report = Report()
    start = time.perf_counter()
    # in a directory of its own: a pipeline may name files (`xnn-tune{db=...}` writes one)
    with tempfile.TemporaryDirectory() as tmp, contextlib.chdir(tmp):
        path = os.path.join(tmp, "case.mlir")
        texts, report.weights = model_seeds(zoo) if models else ([], {})
        weights_file = os.path.join(tmp, "weights.npz")
        np.savez(weights_file, **report.weights)
        flags = ["--weights", weights_file]
        # Mutations start from valid IR (the lit files also hold IR that must not verify).
        seeds = [
            s for s in lit_seeds() + texts if run_case(path, s, flags, time_limit).kind == "ok"
        ]
        vocabulary = sorted({t for s in seeds for t in TOKEN.findall(s) if not t.isspace()})
        for _ in range(cases):
            text = mutate(rng, rng.choice(seeds), vocabulary)
            argv = flags + (["-p", pipeline(rng)] if rng.random() < 0.9 else [])
            if rng.random() < 0.1:
                argv += ["-t", "xnnpack", "-o", os.path.join(tmp, "out.xnn")]
            elif rng.random() < 0.1:
                argv.append(rng.choice(["--print-op-generic", "--split-input-file"]))
            outcome = run_case(path, text, argv, time_limit)
            report.cases += 1
            report.kinds[outcome.kind] += 1
            if outcome.kind == "bug":
                argv[1] = "weights.npz"
                report.bugs.setdefault(_signature(outcome.message, path), (text, " ".join(argv)))
    report.seconds = time.perf_counter() - start
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=5000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--time-limit", type=int, default=20, help="seconds per case")
    parser.add_argument("--no-models", action="store_true", help="lit seeds only")
    parser.add_argument("--zoo", action="store_true", help="seeds from the example models too")
    parser.add_argument("--save-bugs", metavar="DIR", help="write one reproducer per bug")
    parser.add_argument("--memory-limit", type=float, default=6.0,
                        help="GB of address space: a runaway allocation is a MemoryError, "
                        "reported as a bug, not a machine out of memory")  # fmt: skip
    args = parser.parse_args()
    limit = int(args.memory_limit * 2**30)
    resource.setrlimit(resource.RLIMIT_AS, (limit, resource.getrlimit(resource.RLIMIT_AS)[1]))
    report = fuzz(args.cases, args.seed, not args.no_models, args.time_limit, args.zoo)
    print(f"{report.cases} cases in {report.seconds:.0f} s "
          f"({1e3 * report.seconds / max(report.cases, 1):.0f} ms/case): "
          f"{report.kinds['ok']} ran, {report.kinds['error']} one-line errors, "
          f"{report.kinds['bug']} bugs ({len(report.bugs)} distinct)")  # fmt: skip
    if args.save_bugs and report.bugs:
        import numpy as np

        os.makedirs(args.save_bugs, exist_ok=True)
        np.savez(os.path.join(args.save_bugs, "weights.npz"), **report.weights)
    for i, (signature, (text, argv)) in enumerate(report.bugs.items()):
        print(f"  bug {i}: {signature}\n         xnn-opt case.mlir {argv}")
        if args.save_bugs:
            Path(args.save_bugs, f"bug{i}.mlir").write_text(f"// xnn-opt %s {argv}\n{text}")


if __name__ == "__main__":
    main()
