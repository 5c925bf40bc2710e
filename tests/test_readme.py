"""README.md runs: every python, sh/bash and console block is executed, and every mlir block
is checked against what the runnable block before it prints.

What steers a block are HTML comments on the lines right above it (invisible on the page):

- `<!-- test: skip REASON -->`: not run; the test is skipped naming REASON. Keep it rare
  (installs, `make`).
- `<!-- test: small -->`: a python block runs with the `make_*` factories of
  `xnnc.examples.models` called with `small=True` (seconds instead of minutes; the shapes
  change, so a block whose output an mlir block shows must not use it).
- `<!-- test: setup -->`: the block's files are kept for the shell blocks. Setup blocks run
  once per test process, in document order, in one directory; every sh/console block runs in
  a copy of it, with `lit_tests/` linked in (the README's commands run from the repository
  root).

An ```mlir block is an excerpt of the output of the nearest runnable block above it, and a
```console block runs its `$ ` lines and is an excerpt of their output. An excerpt matches
when its text, whitespace runs read as one space and `//` comments dropped, appears in the
output in order, `...` standing for any text.

Python blocks run in this process in a fresh namespace (compiled as README.md lines, so a
traceback points at the README); shell blocks run under `bash -e -o pipefail` with this
interpreter's bin directory (xnn-opt, xnn-run, python) first on PATH and this tree on
PYTHONPATH.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import io
import os
import re
import shutil
import subprocess
import sys
import traceback
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
README = REPO / "README.md"
RUNNABLE = {"python", "sh", "bash", "console"}
MARKER = re.compile(r"^\s*<!-- test: (\w+)\s*(.*?)\s*-->\s*$")
MARKERS = {"skip", "small", "setup"}
FENCE = re.compile(r"^(\s*)```(\w*)\s*$")


@dataclasses.dataclass(frozen=True)
class Block:
    """A fenced block of README.md: `line` is the fence's (1-based), `code` is dedented."""

    lang: str
    line: int
    code: str
    markers: tuple[tuple[str, str], ...]

    @property
    def id(self) -> str:
        return f"README.md:{self.line}-{self.lang or 'text'}"

    def marker(self, name: str) -> str | None:
        return next((arg for key, arg in self.markers if key == name), None)

    @property
    def runnable(self) -> bool:
        return self.lang in RUNNABLE


def parse_blocks(text: str) -> list[Block]:
    """The fenced blocks of a markdown text, with the `test:` markers just above each."""
    lines = text.splitlines()
    blocks: list[Block] = []
    i = 0
    while i < len(lines):
        opening = FENCE.match(lines[i])
        if not opening:
            i += 1
            continue
        indent, lang = opening.groups()
        markers = []
        j = i - 1
        while j >= 0 and MARKER.match(lines[j]):
            key, arg = MARKER.match(lines[j]).groups()
            markers.insert(0, (key, arg))
            j -= 1
        end = next((k for k in range(i + 1, len(lines)) if lines[k].strip() == "```"), None)
        if end is None:
            raise ValueError(f"README.md:{i + 1}: a code block that is never closed")
        body = [line.removeprefix(indent) for line in lines[i + 1 : end]]
        blocks.append(Block(lang, i + 1, "\n".join(body) + "\n", tuple(markers)))
        i = end + 1
    return blocks


def excerpt_fragments(excerpt: str) -> list[str]:
    """The pieces of an excerpt that must appear in order, whitespace-normalized."""
    text = re.sub(r"//[^\n]*", "", excerpt)
    return [" ".join(piece.split()) for piece in text.split("...") if piece.split()]


def missing_fragment(excerpt: str, output: str) -> str | None:
    """The first piece of `excerpt` not found in order in `output`, or None if all are."""
    flat = " ".join(output.split())
    pos = 0
    for fragment in excerpt_fragments(excerpt):
        found = flat.find(fragment, pos)
        if found < 0:
            return fragment
        pos = found + len(fragment)
    return None


BLOCKS = parse_blocks(README.read_text())


def _source_of(excerpt: Block) -> Block | None:
    """The runnable block whose output an mlir block shows: the nearest one above it."""
    before = [b for b in BLOCKS if b.runnable and b.line < excerpt.line]
    return before[-1] if before else None


def _excerpts_of(block: Block) -> list[Block]:
    return [b for b in BLOCKS if b.lang == "mlir" and _source_of(b) is block]


@contextlib.contextmanager
def _small_models() -> Iterator[None]:
    from xnnc.examples import models

    factories = {n: f for n, f in vars(models).items() if n.startswith("make_") and callable(f)}
    for name, factory in factories.items():
        setattr(models, name, functools.partial(factory, small=True))
    try:
        yield
    finally:
        for name, factory in factories.items():
            setattr(models, name, factory)


def _run_python(block: Block, cwd: Path) -> str:
    """Runs the block in a fresh namespace in `cwd`; returns what it printed."""
    code = compile("\n" * block.line + block.code, str(README), "exec")
    out = io.StringIO()
    small = _small_models() if block.marker("small") is not None else contextlib.nullcontext()
    with contextlib.chdir(cwd), contextlib.redirect_stdout(out), small:
        exec(code, {"__name__": "__readme__"})
    return out.getvalue()


def _shell_env() -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")
    paths = [str(REPO.parent), *filter(None, env.get("PYTHONPATH", "").split(os.pathsep))]
    env["PYTHONPATH"] = os.pathsep.join(paths)
    return env


def _shell_script(block: Block) -> str:
    if block.lang != "console":
        return block.code
    return "\n".join(ln[2:] for ln in block.code.splitlines() if ln.startswith("$ ")) + "\n"


def _run_shell(block: Block, cwd: Path) -> str:
    """Runs the block under bash in `cwd`; fails the test with its stderr if it fails."""
    done = subprocess.run(
        ["bash", "-e", "-o", "pipefail", "-c", _shell_script(block)],
        cwd=cwd,
        env=_shell_env(),
        capture_output=True,
        text=True,
        timeout=600,
    )
    if done.returncode != 0:
        tail = "\n".join(done.stderr.strip().splitlines()[-15:])
        pytest.fail(f"{block.id}: exit status {done.returncode}\n{block.code}stderr:\n{tail}")
    return done.stdout


def _run(block: Block, cwd: Path) -> str:
    return _run_python(block, cwd) if block.lang == "python" else _run_shell(block, cwd)


def _where(error: BaseException) -> str:
    """The error, at the README line a python block raised it from."""
    lines = [
        f.lineno for f in traceback.extract_tb(error.__traceback__) if f.filename == str(README)
    ]
    at = f"README.md:{lines[-1]}: " if lines else ""
    return f"{at}{type(error).__name__}: {error}"


@dataclasses.dataclass
class Workdir:
    """The directory the setup blocks made their files in, and what each printed."""

    path: Path
    outputs: dict[int, str]
    failure: str | None


@pytest.fixture(scope="session")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Workdir:
    path = tmp_path_factory.mktemp("readme-setup")
    (path / "lit_tests").symlink_to(REPO / "lit_tests", target_is_directory=True)
    outputs: dict[int, str] = {}
    for block in BLOCKS:
        if block.runnable and block.marker("setup") is not None:
            try:
                outputs[block.line] = _run(block, path)
            except (Exception, pytest.fail.Exception) as e:  # reported by the tests needing it
                return Workdir(path, outputs, f"setup block {block.id} failed: {_where(e)}")
    return Workdir(path, outputs, None)


def _check_excerpts(block: Block, output: str) -> None:
    for excerpt in _excerpts_of(block):
        missing = missing_fragment(excerpt.code, output)
        assert missing is None, (
            f"{excerpt.id}: not what {block.id} prints; missing (in order): {missing!r}"
        )


def _needs_setup(block: Block) -> bool:
    return block.marker("setup") is not None or block.lang != "python"


# The blocks needing the setup share one xdist worker (`--dist loadgroup`, as `make test`
# runs), so it runs once; the others need none and go anywhere.
@pytest.mark.parametrize(
    "block",
    [
        pytest.param(b, marks=[pytest.mark.xdist_group("readme_setup")] if _needs_setup(b) else [])
        for b in BLOCKS
        if b.runnable
    ],
    ids=lambda b: b.id,
)
def test_block_runs(block: Block, request: pytest.FixtureRequest, tmp_path: Path) -> None:
    reason = block.marker("skip")
    if reason is not None:
        pytest.skip(reason or "no reason given")
    # Asked for lazily: blocks of their own are spared the setup's cost.
    workdir: Workdir | None = request.getfixturevalue("workdir") if _needs_setup(block) else None
    if block.marker("setup") is not None:
        if block.line not in workdir.outputs:
            pytest.fail(workdir.failure or f"{block.id}: setup did not reach it")
        output = workdir.outputs[block.line]
    elif block.lang == "python":
        output = _run_python(block, tmp_path)
    else:
        if workdir.failure:
            pytest.fail(workdir.failure)
        shutil.copytree(workdir.path, tmp_path, symlinks=True, dirs_exist_ok=True)
        output = _run_shell(block, tmp_path)
    _check_excerpts(block, output)
    if block.lang == "console":
        expected = "\n".join(ln for ln in block.code.splitlines() if not ln.startswith("$ "))
        missing = missing_fragment(expected, output)
        assert missing is None, f"{block.id}: the output differs; missing (in order): {missing!r}"


def test_markers_are_known() -> None:
    for block in BLOCKS:
        for key, arg in block.markers:
            assert key in MARKERS, f"{block.id}: unknown marker 'test: {key}'"
            if key == "skip":
                assert arg, f"{block.id}: a skip names its reason"
            if key in ("small", "setup"):
                assert block.runnable, f"{block.id}: 'test: {key}' on a {block.lang} block"


def test_every_mlir_block_shows_a_run() -> None:
    for block in BLOCKS:
        if block.lang == "mlir":
            source = _source_of(block)
            assert source is not None, f"{block.id}: no runnable block above it"
            assert source.marker("skip") is None, f"{block.id}: shows a skipped block"
            assert source.marker("small") is None, (
                f"{block.id}: shows a block run on small models, whose shapes differ"
            )


def test_excerpt_matching_fails_on_a_false_excerpt() -> None:
    output = "%0 = xnn.static_transpose %x {perm = array<i64: 0, 2, 1>}\n%1 = xnn.unary elu %0\n"
    assert missing_fragment("%0 = xnn.static_transpose %x ...\n%1 = xnn.unary elu", output) is None
    assert missing_fragment("%0 = xnn.static_transpose ...   // a comment", output) is None
    assert missing_fragment("%1 = xnn.unary elu\n...\n%0 =", output) == "%0 ="
    assert missing_fragment("{perm = array<i64: 0, 1, 2>}", output) == (
        "{perm = array<i64: 0, 1, 2>}"
    )


def test_two_commands_are_the_makefiles() -> None:
    """`make demo` / `make test` (and every `make X` the README names) are Makefile targets
    doing what the README says; CI runs `make test`."""
    makefile = (REPO / "Makefile").read_text()
    recipes = dict(re.findall(r"^([\w-]+):[^\n]*\n((?:\t[^\n]*\n)*)", makefile, re.M))
    first = next(b for b in BLOCKS if b.lang == "sh")
    assert re.findall(r"^make (\w+)", first.code, re.M) == ["demo", "test"], first.id
    for target in set(re.findall(r"`make ([\w-]+)", README.read_text())) | {"demo", "test"}:
        assert target in recipes, f"README names `make {target}`, which the Makefile lacks"
    assert "-m xnnc.examples.demo" in recipes["demo"]
    demo = (REPO / "examples" / "demo.py").read_text()
    assert '"--model", default="mimi"' in demo, "the demo's default is not the Mimi decoder"
    for command in ("lint-imports", "python -m pytest", "lit"):
        assert f"$(BIN)/{command} " in recipes["test"], f"make test does not run {command}"
    assert re.search(r"^exec make test$", (REPO / ".ci" / "run").read_text(), re.M)


def test_every_pass_is_named() -> None:
    import xnnc

    text = README.read_text()
    unnamed = [name for name in xnnc.get_all_passes() if f"`{name}" not in text]
    assert not unnamed, f"passes the README does not name: {unnamed}"


def _section(title: str) -> str:
    text = README.read_text()
    start = text.index(f"\n## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start : end if end >= 0 else len(text)]


def _option_text(default: object) -> str:
    return str(default).lower() if isinstance(default, bool) else str(default)


def test_rewrite_table_names_each_pass_with_its_options() -> None:
    """Each row of the Rewrites table: a registered pass, and its options column lists
    exactly the pass's options with their defaults (`mode=auto\\|native\\|fp32`: the first)."""
    from xnnc.passes import get_all_passes, load_pass

    rows = re.findall(r"^\| `([a-z0-9-]+)` \|.*\| *(?:`([^`]*)`)? *\|$", _section("Rewrites"), re.M)
    assert len(rows) >= 10, "the Rewrites table was not found"
    for name, options in rows:
        assert name in get_all_passes(), f"Rewrites table: `{name}` is not a registered pass"
        fields = dataclasses.fields(load_pass(name))
        want = {f.name.replace("_", "-"): _option_text(f.default) for f in fields}
        shown = dict(o.split("=", 1) for o in options.split())
        shown = {key: value.split("\\|")[0] for key, value in shown.items()}
        assert shown == want, f"Rewrites table, `{name}`: options {shown}, the pass has {want}"


def test_layout_names_files_that_exist() -> None:
    """Every entry of the Layout block exists, every `*.py` its line names exists under it,
    and every package and top-level module of the tree has an entry."""
    layout = next(b for b in BLOCKS if b.lang == "" and "driver.py" in b.code)
    entries: dict[str, str] = {}
    for line in layout.code.splitlines():
        if line and not line.startswith(" "):
            entry, _, text = line.partition(" ")
            entries[entry] = text
        elif line.strip():
            entries[entry] += " " + line.strip()
    for entry, text in entries.items():
        assert (REPO / entry).exists(), f"Layout names {entry}, which does not exist"
        for module in re.findall(r"[\w]+\.py\b", text if entry.endswith("/") else ""):
            found = list((REPO / entry).rglob(module))
            assert found, f"Layout names {entry}{module}, which does not exist"
    tree = {p.name + "/" for p in REPO.iterdir() if (p / "__init__.py").exists()}
    tree |= {p.name for p in REPO.glob("*.py") if p.name != "__init__.py"}
    missing = sorted(tree - set(entries))
    assert not missing, f"the Layout block has no entry for {missing}"


def _inline_code() -> list[str]:
    """The `code spans` of the README's prose (multi-line spans joined)."""
    lines, inside = [], False
    for line in README.read_text().splitlines():
        if line.strip().startswith("```"):
            inside = not inside
        elif not inside:
            lines.append(line)
    prose = "\n".join(lines)
    return [" ".join(span.split()) for span in re.findall(r"`([^`]+)`", prose)]


def test_pipelines_in_the_prose_build() -> None:
    """Every `-p PIPELINE` and `pass{options}` the prose writes (but those eliding with
    `...`) names registered passes with options they have and a valid target."""
    from xdsl.utils.arg_spec import parse_pipeline

    from xnnc.options import CompileOptions
    from xnnc.passes import load_pass

    pipelines = []
    for span in _inline_code():
        pipelines += [a or b for a, b in re.findall(r"-p (?:'([^']+)'|([a-z][\w,-]*))", span)]
        pipelines += re.findall(r"^[a-z][\w-]*\{.*\}$", span)
    pipelines = [p for p in pipelines if "..." not in p]
    assert any("{" in p for p in pipelines), "no pipelines with options found in the prose"
    for pipeline in pipelines:
        for spec in parse_pipeline(pipeline):
            built = load_pass(spec.name).from_pass_spec(spec)
            if getattr(built, "target", ""):
                CompileOptions(target=built.target)


def test_target_attribute_in_the_prose_parses_back() -> None:
    import xnnc

    spans = [s for s in _inline_code() if s.startswith("#xnn.target<")]
    assert spans, "the README shows no #xnn.target"
    for attr in spans:
        module = xnnc.parse_module(f"builtin.module attributes {{xnn.target = {attr}}} {{\n}}")
        assert attr in xnnc.print_module(module), f"{attr} prints differently"
