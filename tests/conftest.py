"""Shared setup: each small example model (`xnnc.examples.models`) is built, run in eager,
exported, imported and compiled once per session, not once per test that needs it.

torch.export and its decompositions cost 0.5-3 s per model, so a test takes what it needs
from the session-scoped `zoo` fixture. What the zoo hands out is shared: tests read it and
call it. `imported` and `exported` give copies, to rewrite or lower at will; a test that
changes a program compiles its own from `zoo.exported(name)`.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Hashable
from typing import Any, TypeVar

import pytest
import torch
import torch.nn as nn
from torch.export import ExportedProgram
from xdsl.dialects.builtin import ModuleOp

import xnnc
from xnnc.examples.models import MODELS
from xnnc.frontend.fx_importer import export_program
from xnnc.pipeline.options import CompileOptions
from xnnc.program import Program

T = TypeVar("T")


@pytest.fixture(autouse=True, scope="session")
def _tuning_db(tmp_path_factory: pytest.TempPathFactory):
    """Host compiles tune (`tune="auto"`): into a database of the session's own, never the
    user's cache."""
    mp = pytest.MonkeyPatch()
    mp.setenv("XNNC_TUNING_DB", str(tmp_path_factory.mktemp("tuning") / "tuning.json"))
    yield
    mp.undo()


class Zoo:
    """The small (`small=True`) example models by name; each piece is computed once."""

    def __init__(self) -> None:
        self._made: dict[Hashable, Any] = {}

    def _once(self, key: Hashable, make: Callable[[], T]) -> T:
        if key not in self._made:
            self._made[key] = make()
        return self._made[key]

    def example(self, name: str) -> tuple[nn.Module, tuple[torch.Tensor, ...]]:
        """(eval-mode model, example inputs)."""
        return self._once(("example", name), lambda: MODELS[name](small=True))

    def eager(self, name: str) -> Any:
        """The model's output on its example inputs."""
        model, inputs = self.example(name)
        with torch.no_grad():
            return self._once(("eager", name), lambda: model(*inputs))

    def _exported(self, name: str) -> ExportedProgram:
        return self._once(("exported", name), lambda: export_program(*self.example(name)))

    def exported(self, name: str) -> ExportedProgram:
        """torch.export of the model: a copy, as ExecuTorch's lowering takes constants out of
        the program it lowers (and `Program.save(".pte")` lowers the compiled-from one)."""
        return copy.deepcopy(self._exported(name))

    def imported(self, name: str) -> ModuleOp:
        """The model in the `aten` dialect: a copy to rewrite at will (weights shared)."""
        module = self._once(("imported", name), lambda: xnnc.import_model(self._exported(name)))
        return module.clone()

    def compiled(self, name: str, *, profile: bool = False, **fields: Any) -> Program:
        """`xnnc.compile(model, **fields, savable=True)`, shared by every test asking for the
        same options (compared as checked `CompileOptions`); savable, as tests save them."""
        options = CompileOptions(**fields)
        key = ("compiled", name, options, profile)
        return self._once(
            key,
            lambda: xnnc.compile(
                self.exported(name), options=options, profile=profile, savable=True
            ),
        )

    def pte(self, name: str, target: str = "stock", fp16: str = "auto") -> bytes:
        """`to_pte(model, target=target, fp16=fp16)`: a `.pte` through `XnncPartitioner`."""
        from xnnc.pte import to_pte

        options = CompileOptions(target=target, fp16=fp16)
        return self._once(
            ("pte", name, options), lambda: to_pte(self.exported(name), None, options)
        )


@pytest.fixture(scope="session")
def zoo() -> Zoo:
    return Zoo()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Under pytest-xdist's `--dist loadgroup` (`make test`), the tests that use the zoo run
    on one worker, so that each model is still built once; the others run a module at a
    time, so that a module's fixtures (compiled models, a venv) are built once too: spread
    test by test, each worker built them, and again when other modules' tests ran between."""
    for item in items:
        if "zoo" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.xdist_group("zoo"))
        elif item.get_closest_marker("xdist_group") is None:
            item.add_marker(pytest.mark.xdist_group(item.nodeid.split("::")[0]))
