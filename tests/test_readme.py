"""README.md and docs/*.md run: every python, sh/bash and console block of each page is
executed, and every mlir block is checked against what the runnable block before it prints.

What steers a block are HTML comments on the lines right above it (invisible on the page):

- `<!-- test: skip REASON -->`: not run; the test is skipped naming REASON. Keep it rare
  (installs, `make`).
- `<!-- test: small -->`: a python block runs with the `make_*` factories of
  `xnnc.examples.models` called with `small=True` (seconds instead of minutes; the shapes
  change, so a block whose output an mlir block shows must not use it).
- `<!-- test: setup -->`: the block's files are kept for the page's shell blocks. A page's
  setup blocks run once per test session, in page order, in one directory of that page;
  every sh/console block of the page runs in a copy of it, with `lit_tests/` linked in (the
  pages' commands run from the repository root).
- `<!-- test: excerpt PATH -->`: the block is a piece of the repository's file PATH, shown
  to explain it; not run, but checked to appear in PATH (as an mlir block is checked
  against an output).

An ```mlir block is an excerpt of the output of the nearest runnable block above it on the
same page, and a ```console block runs its `$ ` lines and is an excerpt of their output. An
excerpt matches when its text, whitespace runs read as one space and `//` comments dropped,
appears in the output in order, `...` standing for any text.

Python blocks run in this process in a fresh namespace (compiled as lines of their page, so
a traceback points at the page); shell blocks run under `bash -e -o pipefail` with this
interpreter's bin directory (xnn-opt, xnn-run, python) first on PATH and this tree on
PYTHONPATH. The pages' code uses the public API only (`xnnc.compile`, `xnnc.load`, ...), so
moving a module inside the package never breaks them.
"""

from __future__ import annotations

import contextlib
import dataclasses
import fcntl
import functools
import io
import json
import os
import re
import shutil
import subprocess
import sys
import traceback
from collections.abc import Iterator
from pathlib import Path

import pytest

# The repository root, however deep under tests/ this file sits.
REPO = next(p for p in Path(__file__).resolve().parents if (p / "README.md").is_file())
README = REPO / "README.md"
PAGES = [README, *sorted((REPO / "docs").glob("*.md"))]
RUNNABLE = {"python", "sh", "bash", "console"}
MARKER = re.compile(r"^\s*<!-- test: (\w+)\s*(.*?)\s*-->\s*$")
MARKERS = {"skip", "small", "setup", "excerpt"}
FENCE = re.compile(r"^(\s*)```(\w*)\s*$")
# Pages whose code blocks are source excerpts not yet marked `test: excerpt PATH`: their
# blocks are skipped with this reason until they are. Remove a page once it is marked.
UNMARKED_EXCERPTS = {}


def _name(page: Path) -> str:
    return str(page.relative_to(REPO))


@dataclasses.dataclass(frozen=True)
class Block:
    """A fenced block of a page: `line` is the fence's (1-based), `code` is dedented."""

    page: Path
    lang: str
    line: int
    code: str
    markers: tuple[tuple[str, str], ...]

    @property
    def id(self) -> str:
        return f"{_name(self.page)}:{self.line}-{self.lang or 'text'}"

    def marker(self, name: str) -> str | None:
        return next((arg for key, arg in self.markers if key == name), None)

    @property
    def runnable(self) -> bool:
        return self.lang in RUNNABLE and self.marker("excerpt") is None


def parse_blocks(text: str, page: Path = README) -> list[Block]:
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
            raise ValueError(f"{_name(page)}:{i + 1}: a code block that is never closed")
        body = [line.removeprefix(indent) for line in lines[i + 1 : end]]
        blocks.append(Block(page, lang, i + 1, "\n".join(body) + "\n", tuple(markers)))
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


BLOCKS = {page: parse_blocks(page.read_text(), page) for page in PAGES}
ALL_BLOCKS = [block for blocks in BLOCKS.values() for block in blocks]


def _source_of(excerpt: Block) -> Block | None:
    """The runnable block whose output an mlir block shows: the nearest one above it."""
    before = [b for b in BLOCKS[excerpt.page] if b.runnable and b.line < excerpt.line]
    return before[-1] if before else None


def _excerpts_of(block: Block) -> list[Block]:
    return [
        b
        for b in BLOCKS[block.page]
        if b.lang == "mlir" and b.marker("excerpt") is None and _source_of(b) is block
    ]


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
    code = compile("\n" * block.line + block.code, str(block.page), "exec")
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


def _where(block: Block, error: BaseException) -> str:
    """The error, at the page line a python block raised it from."""
    frames = traceback.extract_tb(error.__traceback__)
    lines = [f.lineno for f in frames if f.filename == str(block.page)]
    at = f"{_name(block.page)}:{lines[-1]}: " if lines else ""
    return f"{at}{type(error).__name__}: {error}"


@dataclasses.dataclass
class Workdir:
    """The directory a page's setup blocks made their files in, and what each printed."""

    path: Path
    outputs: dict[int, str]
    failure: str | None


def _set_up(page: Path, path: Path) -> Workdir:
    path.mkdir()
    (path / "lit_tests").symlink_to(REPO / "lit_tests", target_is_directory=True)
    outputs: dict[int, str] = {}
    for block in BLOCKS[page]:
        if block.runnable and block.marker("setup") is not None:
            try:
                outputs[block.line] = _run(block, path)
            except (Exception, pytest.fail.Exception) as e:  # reported by the tests needing it
                return Workdir(path, outputs, f"setup block {block.id} failed: {_where(block, e)}")
    return Workdir(path, outputs, None)


def _shared_set_up(page: Path, root: Path) -> Workdir:
    """The page's setup in `root`, made by the first process to ask (under a file lock), read
    back by the others: pytest-xdist's workers share `root`."""
    path, done = root / f"setup-{page.stem}", root / f"setup-{page.stem}.json"
    with open(root / f"setup-{page.stem}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not done.exists():
            made = _set_up(page, path)
            done.write_text(json.dumps({"outputs": made.outputs, "failure": made.failure}))
        record = json.loads(done.read_text())
    outputs = {int(line): text for line, text in record["outputs"].items()}
    return Workdir(path, outputs, record["failure"])


@pytest.fixture(scope="session")
def workdirs(tmp_path_factory: pytest.TempPathFactory, worker_id: str) -> dict[Path, Workdir]:
    """Each page's setup, made the first time a block of the page asks for it, once per
    test session (also across xdist workers, which need not keep a page's blocks together)."""
    base = tmp_path_factory.getbasetemp()
    root = base if worker_id == "master" else base.parent  # the session's, shared by workers

    class Lazy(dict):
        def __missing__(self, page: Path) -> Workdir:
            self[page] = _shared_set_up(page, root)
            return self[page]

    return Lazy()


def _check_excerpts(block: Block, output: str) -> None:
    for excerpt in _excerpts_of(block):
        missing = missing_fragment(excerpt.code, output)
        assert missing is None, (
            f"{excerpt.id}: not what {block.id} prints; missing (in order): {missing!r}"
        )


def _needs_setup(block: Block) -> bool:
    return block.marker("setup") is not None or block.lang != "python"


@pytest.mark.parametrize("block", [b for b in ALL_BLOCKS if b.runnable], ids=lambda b: b.id)
def test_block_runs(block: Block, request: pytest.FixtureRequest, tmp_path: Path) -> None:
    reason = block.marker("skip") or UNMARKED_EXCERPTS.get(_name(block.page))
    if reason is not None:
        pytest.skip(reason or "no reason given")
    # Asked for lazily: blocks of their own are spared the setup's cost.
    workdir = request.getfixturevalue("workdirs")[block.page] if _needs_setup(block) else None
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


@pytest.mark.parametrize("page", PAGES, ids=_name)
def test_source_excerpts_are_in_their_files(page: Path) -> None:
    for block in BLOCKS[page]:
        source = block.marker("excerpt")
        if source:
            path = REPO / source
            assert path.is_file(), f"{block.id}: an excerpt of {source}, which does not exist"
            missing = missing_fragment(block.code, path.read_text())
            assert missing is None, f"{block.id}: not in {source}; missing (in order): {missing!r}"


@pytest.mark.parametrize("page", PAGES, ids=_name)
def test_markers_are_known(page: Path) -> None:
    for block in BLOCKS[page]:
        for key, arg in block.markers:
            assert key in MARKERS, f"{block.id}: unknown marker 'test: {key}'"
            if key in ("skip", "excerpt"):
                assert arg, f"{block.id}: a {key} names its {'reason' if key == 'skip' else 'file'}"
            if key in ("small", "setup"):
                assert block.runnable, f"{block.id}: 'test: {key}' on a {block.lang} block"


@pytest.mark.parametrize("page", PAGES, ids=_name)
def test_every_mlir_block_shows_a_run(page: Path) -> None:
    for block in BLOCKS[page]:
        if block.lang == "mlir" and block.marker("excerpt") is None:
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


def _text() -> str:
    """README.md and the docs, one text."""
    return "\n".join(page.read_text() for page in PAGES)


def test_two_commands_are_the_makefiles() -> None:
    """`make demo` / `make test` (and every `make X` the pages name) are Makefile targets
    doing what the README says; CI runs `make test`, then the arm64 smoke part."""
    makefile = (REPO / "Makefile").read_text()
    recipes = dict(re.findall(r"^([\w-]+):[^\n]*\n((?:\t[^\n]*\n)*)", makefile, re.M))
    first = next(b for b in BLOCKS[README] if b.lang == "sh")
    assert re.findall(r"^make (\w+)", first.code, re.M) == ["demo", "test"], first.id
    for target in set(re.findall(r"`make ([\w-]+)", _text())) | {"demo", "test"}:
        assert target in recipes, f"the docs name `make {target}`, which the Makefile lacks"
    assert "-m xnnc.examples.demo" in recipes["demo"]
    demo = (REPO / "examples" / "demo.py").read_text()
    assert '"--model", default="mimi"' in demo, "the demo's default is not the Mimi decoder"
    for command in ("lint-imports", "python -m pytest", "lit"):
        assert f"$(BIN)/{command} " in recipes["test"], f"make test does not run {command}"
    ci = (REPO / ".ci" / "run").read_text()
    assert re.search(r"^make test$", ci, re.M) and re.search(r"^make test-arm64-smoke$", ci, re.M)


def test_readme_is_short() -> None:
    """The README is for newcomers; the reference lives in docs/, dated runs in
    benchmarks/RESULTS.md."""
    lines = README.read_text().splitlines()
    assert len(lines) <= 250, f"README.md has {len(lines)} lines; move reference to docs/"
    assert max(map(len, lines)) <= 400, "a README line longer than 400 characters"


def test_every_pass_is_named() -> None:
    import xnnc

    text = _text()
    unnamed = [name for name in xnnc.get_all_passes() if f"`{name}" not in text]
    assert not unnamed, f"passes neither the README nor docs/ name: {unnamed}"


def _section(page: Path, title: str) -> str:
    text = page.read_text()
    start = text.index(f"\n## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start : end if end >= 0 else len(text)]


# Passes of the tools, not of the default pipeline's stages.
TOOL_PASSES = {"cse", "dce", "xnn-set-target", "xnnc-pipeline"}


def test_stage_table_names_the_pipelines_passes() -> None:
    """docs/pipeline.md's stage table: every pass it names is registered, and every
    registered pass but the tools' is in it."""
    import xnnc

    rows = re.findall(
        r"^\| [a-z ]+ \| (.*?) \| .* \|$", _section(REPO / "docs/pipeline.md", "The stages"), re.M
    )
    assert len(rows) >= 6, "docs/pipeline.md: the stage table was not found"
    named = {n.split("{")[0] for row in rows for n in re.findall(r"`([a-z0-9{}=-]+)`", row)}
    passes = set(xnnc.get_all_passes())
    assert named <= passes, f"docs/pipeline.md names unregistered passes: {named - passes}"
    assert passes - TOOL_PASSES <= named, (
        f"docs/pipeline.md's stage table lacks {sorted(passes - TOOL_PASSES - named)}"
    )


def test_layout_names_files_that_exist() -> None:
    """Every entry of docs/layout.md's tree exists, every `*.py` its line names exists under
    it, and every package and top-level module of the tree has an entry."""
    layout = next(b for b in BLOCKS[REPO / "docs/layout.md"] if b.lang == "")
    entries: dict[str, str] = {}
    for line in layout.code.splitlines():
        if line and not line.startswith(" "):
            entry, _, text = line.partition(" ")
            entries[entry] = text
        elif line.strip():
            entries[entry] += " " + line.strip()
    for entry, text in entries.items():
        assert (REPO / entry).exists(), f"docs/layout.md names {entry}, which does not exist"
        for module in re.findall(r"[\w]+\.py\b", text if entry.endswith("/") else ""):
            found = list((REPO / entry).rglob(module))
            assert found, f"docs/layout.md names {entry}{module}, which does not exist"
    tree = {p.name + "/" for p in REPO.iterdir() if (p / "__init__.py").exists()}
    tree |= {p.name for p in REPO.glob("*.py") if p.name not in ("__init__.py", "setup.py")}
    missing = sorted(tree - set(entries))
    assert not missing, f"docs/layout.md's tree has no entry for {missing}"


def _inline_code() -> list[str]:
    """The `code spans` of the pages' prose (multi-line spans joined)."""
    lines = []
    for page in PAGES:
        inside = False
        for line in page.read_text().splitlines():
            if line.strip().startswith("```"):
                inside = not inside
            elif not inside:
                lines.append(line)
        lines.append("")
    prose = "\n".join(lines)
    return [" ".join(span.split()) for span in re.findall(r"`([^`]+)`", prose)]


def test_pipelines_in_the_prose_build() -> None:
    """Every `-p PIPELINE` and `pass{options}` the prose writes (but those eliding with
    `...`) names registered passes with options they have and a valid target."""
    from xdsl.utils.arg_spec import parse_pipeline

    import xnnc

    registry = xnnc.get_all_passes()
    pipelines = []
    for span in _inline_code():
        pipelines += [a or b for a, b in re.findall(r"-p (?:'([^']+)'|([a-z][\w,-]*))", span)]
        pipelines += re.findall(r"^[a-z][\w-]*\{.*\}$", span)
    pipelines = [p for p in pipelines if "..." not in p]
    assert any("{" in p for p in pipelines), "no pipelines with options found in the prose"
    for pipeline in pipelines:
        for spec in parse_pipeline(pipeline):
            assert spec.name in registry, f"`{pipeline}`: no pass {spec.name!r}"
            built = registry[spec.name]().from_pass_spec(spec)
            if getattr(built, "target", ""):
                xnnc.CompileOptions(target=built.target)


def test_target_attribute_in_the_prose_parses_back() -> None:
    import xnnc

    spans = [s for s in _inline_code() if s.startswith("#xnn.target<")]
    assert spans, "the pages show no #xnn.target"
    for attr in spans:
        module = xnnc.parse_module(f"builtin.module attributes {{xnn.target = {attr}}} {{\n}}")
        assert attr in xnnc.print_module(module), f"{attr} prints differently"
