"""The package's layers: the import-linter contracts in pyproject.toml hold, the imports made by
name (``"package.module:attribute"`` strings that registries and loaders resolve on first use)
obey the same layers, and docs/architecture.md draws the layers the contract declares."""

from __future__ import annotations

import ast
import importlib
import re
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "src" / "hetsched"
#: A name resolved on first use: ``"hetsched.module.path:attribute"``.
TARGET = re.compile(r"hetsched(?:\.\w+)+:\w+")


def contract_layers() -> list[tuple[set[str], bool]]:
    """The layers of the contract, top first: each a set of packages, and whether they are
    independent of each other."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    (layers,) = [c["layers"] for c in config["contracts"] if c["type"] == "layers"]
    return [({part.strip() for part in re.split(r"[|:]", line)}, ":" not in line)
            for line in layers]


def allowed(importer: str, imported: str) -> bool:
    """Whether module ``importer`` may import module ``imported`` under the contract."""
    top = {package: (i, independent) for i, (packages, independent) in
           enumerate(contract_layers()) for package in packages}
    source, target = importer.split(".")[1], imported.split(".")[1]
    if source == target:
        return True
    (low, independent), (high, _) = top[target], top[source]
    return low > high or (low == high and not independent)


def named_imports() -> list[tuple[str, str]]:
    """``(module, target)`` for every ``"hetsched....:attr"`` string literal and every
    ``import_module("hetsched...")`` in the package's source."""
    found = []
    for path in SOURCE.rglob("*.py"):
        parts = path.relative_to(SOURCE.parent).with_suffix("").parts
        module = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) \
                    and TARGET.fullmatch(node.value):
                found.append((module, node.value))
            elif isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "import_module" \
                    and node.args and isinstance(node.args[0], ast.Constant):
                found.append((module, f"{node.args[0].value}:"))
    return found


def registered_imports() -> list[tuple[str, str]]:
    """``(module, target)`` for every entry of every registry (``hetsched.registries``) whose
    target is a ``"hetsched....:attr"`` path: the module is the registry's home."""
    from hetsched.registries import registries

    return [(registry.home, entry.target) for registry in registries().values()
            for entry in registry.entries()
            if isinstance(entry.target, str) and TARGET.fullmatch(entry.target)]


def test_the_import_contracts_hold() -> None:
    """lint-imports on pyproject.toml's contracts (it prints what breaks them)."""
    from importlinter.cli import lint_imports

    assert lint_imports(config_filename=str(ROOT / "pyproject.toml"), no_cache=True,
                        no_logo=True) == 0


def test_every_named_import_resolves_within_the_layers() -> None:
    imports = named_imports() + registered_imports()
    assert len(imports) >= 20  # the scheduler, format and contention registries at least
    for module, target in imports:
        path, _, attribute = target.partition(":")
        assert allowed(module, path), f"{module} names {target}, above its layer"
        imported = importlib.import_module(path)
        assert not attribute or hasattr(imported, attribute), f"{module}: {target} is missing"


def test_no_import_made_by_name_imports_its_importer_back() -> None:
    """A registry naming a module that imports the registry is a cycle import-linter cannot
    see (the scheduler registry and its built-ins were one)."""
    import grimp

    graph = grimp.build_graph("hetsched", cache_dir=None)  # no .grimp_cache/ in the cwd
    for importer, target in named_imports() + registered_imports():
        module = target.partition(":")[0]
        if module != importer:
            assert not graph.chain_exists(importer=module, imported=importer), \
                f"{importer} names {target}, which imports it back: " \
                f"{' -> '.join(graph.find_shortest_chain(importer=module, imported=importer))}"


def test_every_registered_entry_resolves_and_describes_itself() -> None:
    from hetsched.registries import registries

    found = registries()
    assert {"scheduler", "contention model", "platform reader", "workload reader",
            "platform format", "workload format", "workload generator", "heuristic"} <= set(found)
    for kind, registry in found.items():
        assert registry.home.startswith("hetsched.") and registry.kind == kind
        for entry in registry.entries():
            assert entry.factory is not None and entry.description, f"{kind} '{entry.name}'"
            assert registry[entry.name] is entry.factory and entry.kind == kind


@pytest.mark.parametrize("importer, imported, expected", [
    ("hetsched.cli.main", "hetsched.sim.engine", True),
    ("hetsched.sim.engine", "hetsched.schedulers.queue", False),
    ("hetsched.schedulers.queue", "hetsched.output.jobs_csv", False),  # independent siblings
    ("hetsched.platform.native", "hetsched.platform.model", True),
])
def test_the_layer_rule_of_named_imports(importer: str, imported: str, expected: bool) -> None:
    assert allowed(importer, imported) is expected


def test_the_architecture_document_draws_the_contract() -> None:
    """docs/architecture.md's layer diagram lists the contract's layers, in order."""
    text = (ROOT / "docs" / "architecture.md").read_text()
    diagram = text.split("<!-- layers -->")[1].split("```")[1]
    drawn = [{name.strip() for name in re.split(r"[|:]", line.split("#")[0]) if name.strip()}
             for line in diagram.strip().splitlines() if line.split("#")[0].strip()]
    assert drawn == [packages for packages, _ in contract_layers()]
