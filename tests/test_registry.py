"""One registration style (``hetsched.registry``) for every registry, listed by one function
(``hetsched.registries``), with the names each registry had before still working."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from hetsched.errors import ConfigError
from hetsched.registries import catalogue, registries
from hetsched.registry import Entry, Registry


class Described:
    """The first paragraph of the docstring
    (over two lines).

    Not this one."""

    description = ""


class Own:
    description = "its own description"


class Several:
    @classmethod
    def describe(cls, name: str, size: int = 0) -> str:
        return f"{name} of size {size}"


def test_a_registry_reads_as_a_mapping_of_its_targets() -> None:
    registry = Registry("widget", __name__)
    registry.register("own", Own)
    registry.register("several", Several, family="many", size=3)
    assert list(registry) == ["own", "several"] and len(registry) == 2
    assert "own" in registry and "nope" not in registry and registry["own"] is Own
    assert registry.load("several") is Several
    with pytest.raises(KeyError):
        registry["nope"]


@pytest.mark.parametrize("target, text, description", [
    (Own, "", "its own description"),
    (Own, "given text", "given text"),
    (Several, "", "thing of size 3"),
    (Described, "", "The first paragraph of the docstring (over two lines)."),
])
def test_an_entry_describes_itself_unless_given_a_text(target, text, description) -> None:
    assert Entry("thing", target, text, defaults={"size": 3}).description == description


def test_an_unknown_name_is_one_line_with_close_names_or_the_list() -> None:
    registry = Registry("widget", __name__)
    for name in ("alpha", "beta"):
        registry.register(name, Own)
    with pytest.raises(ConfigError, match=r"^unknown widget 'alhpa'; did you mean alpha\? "
                                          r"\(known: alpha, beta\)$"):
        registry.entry("alhpa")
    with pytest.raises(ConfigError, match=r"^unknown widget 'zzz' \(known: alpha, beta\)$"):
        registry.load("zzz")
    long = Registry("gadget", __name__, see="see `hetsched gadgets`")
    long.register("alpha", Own)
    with pytest.raises(ConfigError, match=r"^unknown gadget 'zzz'; see `hetsched gadgets`$"):
        long.entry("zzz")


def test_a_name_is_registered_once_and_built_ins_come_first() -> None:
    loaded = []

    def builtins():
        loaded.append(True)
        return [Entry("first", Own)]

    registry = Registry("widget", __name__, builtins)
    assert not loaded  # nothing is loaded until the registry is used
    registry.register("second", Own)
    assert loaded and [e.name for e in registry.entries()] == ["first", "second"]
    assert registry.entry("first").kind == "widget"
    with pytest.raises(ValueError, match="widget 'first' registered twice"):
        registry.register("first", Own)


def test_a_path_is_imported_when_first_used_and_a_bad_one_is_one_line() -> None:
    registry = Registry("widget", __name__)
    registry.register("broken", "hetsched_no_such_module:Thing")  # nothing imported yet
    registry.register("fine", "hetsched.registry:Registry")
    assert registry["fine"] is Registry
    with pytest.raises(ConfigError, match=r"^widget 'broken' \(hetsched_no_such_module:Thing\) "
                                          r"cannot be loaded: ModuleNotFoundError"):
        registry.load("broken")


def test_every_registry_is_listed_by_kind() -> None:
    found = registries()
    assert list(found) == ["scheduler", "contention model", "platform reader",
                           "workload reader", "platform format", "workload format",
                           "workload generator", "heuristic", "task-graph heuristic",
                           "co-allocation criterion"]
    assert [e.name for e in catalogue("contention model")] == ["none", "irmasim", "deside",
                                                            "deside_stochastic"]
    assert len(catalogue("scheduler")) >= 87
    with pytest.raises(ConfigError, match="no registry of 'schedulr'; did you mean scheduler"):
        catalogue("schedulr")


def test_the_names_the_registries_had_before_keep_working() -> None:
    from hetsched.mapping import HEURISTICS
    from hetsched.models.contention import MODELS, check_contention
    from hetsched.models.contention.sharing import ProcessorSharing
    from hetsched.platform.load import PLATFORM_FORMATS
    from hetsched.platform.writers import WRITERS as PLATFORM_WRITERS
    from hetsched.schedulers import create, entries, register
    from hetsched.workload.generators import GENERATORS, generator
    from hetsched.workload.load import WORKLOAD_FORMATS
    from hetsched.workload.writers import WRITERS, losses, writer

    assert WRITERS["swf"].name == "swf" and writer("json") is WRITERS["json"]
    assert callable(losses) and "simgrid" in PLATFORM_WRITERS
    assert generator("lublin") is GENERATORS["lublin"] and "poisson" in GENERATORS
    assert list(MODELS) == ["none", "irmasim", "deside", "deside_stochastic"]
    assert MODELS["none"] is ProcessorSharing
    assert check_contention("deside") == "deside" and callable(HEURISTICS["min_min"])
    assert [f.name for f in PLATFORM_FORMATS][0] == "native"
    assert [f.name for f in WORKLOAD_FORMATS][:2] == ["dssim", "swf"]
    assert entries() == catalogue("scheduler") and callable(register) and create("fcfs")
    with pytest.raises(ConfigError, match="unknown contention model 'nnone'; did you mean "
                                          "none"):
        check_contention("nnone")


def test_writers_load_on_first_use_and_losses_stays_a_function() -> None:
    """The writers' modules are imported when the registry is first read; the package's
    ``losses`` function is not shadowed by its ``losses`` module, whatever comes first."""
    code = textwrap.dedent("""
        import sys
        import hetsched.workload.writers as writers
        print("hetsched.workload.writers.batsim" in sys.modules)
        from hetsched.workload.writers import losses
        from hetsched.workload.writers.losses import Loss
        print(callable(losses) and writers.losses is losses, sorted(writers.WRITERS)[0])
        print(writers.losses is losses, "hetsched.workload.writers.batsim" in sys.modules)
        """)
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.stdout.split() == ["False", "True", "batsim", "True", "True"], result.stderr
