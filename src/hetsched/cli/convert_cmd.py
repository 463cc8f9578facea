"""``hetsched convert IN OUT [--to FORMAT]``: a workload or platform file in another format
(:mod:`hetsched.convert`)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from hetsched.cli.errors import user_errors, warn


def convert_command(
        source: Annotated[Path, typer.Argument(help="Workload or platform file to read.")],
        out: Annotated[Path, typer.Argument(help="File to write.")],
        to: Annotated[Optional[str], typer.Option(
            "--to", help="Format to write. Workloads: swf, json, yaml, batsim, batsim5, "
            "batsim-ph, batsim5-ph, irmasim, dssim; platforms: json, yaml, irmasim, simgrid. "
            "Default: from OUT's suffix (.json: native; .xml: dssim or simgrid).")] = None,
        platform: Annotated[Optional[Path], typer.Option(
            "--platform", "-p", help="Platform whose slowest core the run times refer to: "
            "needed between SWF/Batsim (seconds) and native/IRMaSim/ds-sim (work).")] = None,
        lossy: Annotated[bool, typer.Option(
            help="Write even if the target format cannot hold everything (the losses are "
            "printed as warnings).")] = False,
        show_losses: Annotated[bool, typer.Option(
            help="Print what the target cannot hold also in a conversion that is the "
            "target's routine (SWF to Batsim delays), which needs no --lossy.")] = False,
        kind: Annotated[Optional[str], typer.Option(
            "--kind", help="What to read of IN: workload or platform. Default: what it holds "
            "(a ds-sim configuration: its job list; --kind platform reads its servers).")]
        = None,
) -> None:
    """Convert a workload or platform file to another format."""
    from hetsched.convert import convert

    with user_errors():
        done = convert(source, out, to, platform, lossy, kind)
    for line in done.losses if show_losses or not done.conventional else ():
        warn(line)
    typer.echo(f"{source} → {out} ({done.kind}, {done.fmt})")
