"""``hetsched generate platform``: a heterogeneous platform from a processor catalogue, by
counts of its node types or by the IRMaSim thesis' heterogeneity recipes, written in
hetsched's native format (:mod:`hetsched.platform.generate`); ``hetsched generate failures``:
a native platform with a seeded failure trace added (:mod:`hetsched.platform.failures`)."""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import Annotated, Optional

import typer

from hetsched.cli.errors import user_errors
from hetsched.errors import ConfigError

class Level(str, Enum):
    low = "low"
    high = "high"


def generate_platform(
        out: Annotated[Path, typer.Option("--out", "-o", help="The platform file to write "
                                          "(.yaml, .yml or .json).", show_default=False)],
        catalogue: Annotated[Optional[Path], typer.Option(
            "--catalogue", help="A directory with the node and processor type files "
            "(hdeeprm_node_types.json and hdeeprm_processor_types.json, or node_types.json and "
            "processor_types.json), or a node types file. Default: HDeepRM's catalogue, "
            "shipped with hetsched.", show_default=False)] = None,
        nodes: Annotated[Optional[str], typer.Option(
            "--nodes", help="Counts of catalogue node types: 'TYPE=N,TYPE=M'; "
            "'TYPE*K=N' puts K sockets of the type's processor on each node.",
            show_default=False)] = None,
        heterogeneity: Annotated[Optional[Level], typer.Option(
            "--heterogeneity", help="The thesis' recipe: single-core nodes with clocks drawn "
            "in its low or high heterogeneity bands.", show_default=False)] = None,
        nodes_total: Annotated[int, typer.Option(
            "--nodes-total", help="With --heterogeneity: nodes in all (a multiple of 16).",
            min=1)] = 16,
        seed: Annotated[int, typer.Option("--seed", help="With --heterogeneity: the seed of "
                                          "the clock draws.", min=0)] = 0,
        name: Annotated[Optional[str], typer.Option(
            "--name", help="The platform's name (default: the output file's stem).",
            show_default=False)] = None) -> None:
    """Write a heterogeneous platform built from a processor catalogue (power from it)."""
    from hetsched.examples import hdeeprm_catalogue_path
    from hetsched.platform import generate
    from hetsched.platform.native import native_platform_from_data

    with user_errors():
        if (nodes is None) == (heterogeneity is None):
            raise ConfigError("give exactly one of --nodes and --heterogeneity")
        if out.suffix.lower() not in (".yaml", ".yml", ".json"):
            raise ConfigError(f"--out: expected a .yaml, .yml or .json file, got '{out}'")
        cat = generate.read_catalogue(catalogue or hdeeprm_catalogue_path())
        title = name or out.stem
        doc = (generate.by_counts(cat, generate.parse_counts(nodes), title) if nodes is not None
               else generate.by_heterogeneity(cat, heterogeneity.value, nodes_total, seed,
                                              title))
        platform = native_platform_from_data(doc, out)  # what is written loads
        out.write_text(_dump(doc, out))
    typer.echo(f"{out}: {len(platform.nodes)} nodes, {platform.total_cores} cores, "
               f"{len(platform.node_types)} node types; full-load power "
               f"{sum(n.type.full_power_w for n in platform.nodes):.1f} W, idle "
               f"{sum(n.type.idle_w for n in platform.nodes):.1f} W")


def generate_failures(
        platform: Annotated[Path, typer.Argument(help="A native platform file.")],
        out: Annotated[Path, typer.Option("--out", "-o", help="The platform file to write "
                                          "(.yaml, .yml or .json): the platform with the "
                                          "trace added to its failures.", show_default=False)],
        mtbf: Annotated[float, typer.Option("--mtbf", help="Mean time between failures of a "
                                            "node (s).", show_default=False)],
        mttr: Annotated[float, typer.Option("--mttr", help="Mean time to repair (s).",
                                            show_default=False)],
        horizon: Annotated[float, typer.Option("--horizon", help="Failures start before this "
                                               "time (s).", show_default=False)],
        seed: Annotated[int, typer.Option("--seed", help="The seed of the draws.",
                                          min=0)] = 0) -> None:
    """Add a seeded failure trace to a native platform: per node, exponential times between
    failures (mean --mtbf) and repair times (mean --mttr), up to --horizon."""
    from hetsched.documents import read_structured
    from hetsched.platform.failures import generate_failures as draw
    from hetsched.platform.native import native_platform_from_data
    from hetsched.platform.writers.native import failure_record

    with user_errors():
        if out.suffix.lower() not in (".yaml", ".yml", ".json"):
            raise ConfigError(f"--out: expected a .yaml, .yml or .json file, got '{out}'")
        doc = read_structured(platform)
        loaded = native_platform_from_data(doc, platform)
        trace = draw(loaded, mtbf, mttr, horizon, seed)
        doc = {**doc, "failures": [*doc.get("failures", []),
                                   *(failure_record(loaded, f) for f in trace)]}
        native_platform_from_data(doc, out)  # what is written loads
        out.write_text(_dump(doc, out))
    typer.echo(f"{out}: {len(trace)} failures on {len(loaded.nodes)} nodes up to "
               f"{horizon:g} s")


def _dump(doc: dict, out: Path) -> str:
    if out.suffix.lower() == ".json":
        import json

        return json.dumps(doc, indent=1) + "\n"
    import yaml

    return yaml.safe_dump(doc, sort_keys=False, width=100)
