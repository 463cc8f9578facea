"""``hetsched generate …``: inputs made by generators (its sub-commands register on
``generate_app``)."""

from __future__ import annotations

import typer

generate_app = typer.Typer(add_completion=False, no_args_is_help=True,
                           help="Generate inputs: platforms from a processor catalogue.")
