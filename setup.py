"""setuptools' hook for what pyproject.toml cannot say: the repository root is the package
`xnnc`, so its subpackages are discovered here and named under it (a package added to the
tree ships without a list to update). Everything else is in pyproject.toml."""

from setuptools import find_packages, setup
from setuptools.command.build_py import build_py


class _BuildPy(build_py):
    """Ship the package's modules, not this hook."""

    def find_package_modules(self, package, package_dir):
        modules = super().find_package_modules(package, package_dir)
        return [m for m in modules if (m[0], m[1]) != ("xnnc", "setup")]


NOT_SHIPPED = ["tests", "tests.*", "lit_tests", "lit_tests.*", "build", "build.*"]

setup(
    packages=["xnnc"] + [f"xnnc.{p}" for p in find_packages(".", exclude=NOT_SHIPPED)],
    cmdclass={"build_py": _BuildPy},
)
