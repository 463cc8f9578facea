"""How help pages show options: a flag (``--quiet``, ``--strict``, ``--help``) shows no
``<bool>`` placeholder, since it takes no value (Typer's rich help shows one for every
option)."""

from __future__ import annotations

from typing import Any

import typer


def untyped_flags(command: Any) -> None:
    """Hide the type placeholder of every flag of ``command`` and its subcommands (``--help``
    included, made here as the help page would make it)."""
    own = list(command.params)
    help_option = command.get_help_option(typer.Context(command))
    for param in [*own, *([help_option] if help_option is not None else [])]:
        if getattr(param, "is_flag", False):
            param.metavar = ""
    for sub in getattr(command, "commands", {}).values():
        untyped_flags(sub)
