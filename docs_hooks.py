"""The documentation site's build hooks (mkdocs.yml): README.md as the home page, and two
griffe extensions for the API reference.

- The README links to the other pages as ``docs/<page>.md`` (right on the repository's front
  page); on the site those pages sit beside the home page, so the ``docs/`` prefix is dropped.
- The docstrings name other objects with Sphinx's roles (``:class:`~hetsched.api.Run```), which
  Markdown would render as the role's text before the code. :class:`SphinxRoles` makes each
  an optional cross-reference for mkdocs-autorefs, a name relative to the object resolved
  against its class and module: a link when the object is on a page of the site, the code
  alone when not.
- A run option's help text is an argument of its field's ``option(...)`` call
  (:mod:`hetsched.run.options`), its one definition: :class:`OptionHelp` shows it as the
  field's docstring and the default as its value.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

import griffe
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files

README = Path(__file__).with_name("README.md")
#: ``:role:`name```, ``:role:`~name``` (its last part shown) or ``:role:`title <name>```.
ROLE = re.compile(r":(?:attr|class|data|exc|func|meth|mod|obj):"
                  r"`(?:([^`<]+?)\s+<([\w.]+)>|(~?)([\w.]+))`")


def home_page(readme: str) -> str:
    """The README's text with its links into ``docs/`` made relative to the site's root."""
    return readme.replace("](docs/", "](")


def on_files(files: Files, config: MkDocsConfig) -> Files:
    files.append(File.generated(config, "index.md",
                                content=home_page(README.read_text(encoding="utf-8"))))
    return files


def full_name(obj: griffe.Object, name: str) -> str:
    """``name`` as written in ``obj``'s docstring, made absolute: a member of ``obj`` (a
    class), of its parent or of its module, else as written."""
    head = name.split(".", 1)[0]
    for scope in (obj, obj.parent, obj.module):
        if scope is not None and head in scope.members:
            return f"{scope.path}.{name}"
    return name


class SphinxRoles(griffe.Extension):
    """Sphinx's roles in docstrings as optional cross-references (see the module's text)."""

    def on_package(self, *, pkg: griffe.Module, **kwargs: Any) -> None:
        for obj in _objects(pkg):
            if obj.docstring is not None:
                obj.docstring.value = ROLE.sub(
                    lambda match, obj=obj: _reference(obj, match), obj.docstring.value)


def _reference(obj: griffe.Object, role: re.Match[str]) -> str:
    title, name, short, bare = role.groups()
    if name is None:
        name = bare
        title = bare.rsplit(".", 1)[-1] if short else bare
    return f'<autoref identifier="{full_name(obj, name)}" optional><code>{title}</code></autoref>'


def _objects(obj: griffe.Object) -> list[griffe.Object]:
    """``obj`` and every object it defines (not the ones it imports)."""
    found = [obj]
    for member in obj.members.values():
        if not member.is_alias:
            found += _objects(member)
    return found


class OptionHelp(griffe.Extension):
    """A run option's help text as its field's docstring (see the module's text)."""

    def on_attribute_instance(self, *, node: ast.AST | griffe.ObjectNode,
                              attr: griffe.Attribute, **kwargs: Any) -> None:
        call = getattr(node, "value", None)
        if (isinstance(call, ast.Call) and isinstance(call.func, ast.Name)
                and call.func.id == "option" and len(call.args) >= 3
                and isinstance(text := call.args[2], ast.Constant)):
            attr.docstring = griffe.Docstring(text.value, parent=attr)
            attr.value = ast.unparse(call.args[0])
