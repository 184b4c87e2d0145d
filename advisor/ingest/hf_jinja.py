"""The pieces of transformers' chat-template Jinja environment that a template can see:
its ``tojson`` (key order and non-ASCII text kept), ``raise_exception``, the
``{% generation %}`` block, and ``dict`` / ``namespace`` without underscore attributes.
Shared by the renderer (``chat_template``) and the content-format check (``content_format``).
"""

from __future__ import annotations

import json
from typing import Any

from jinja2 import nodes
from jinja2.exceptions import SecurityError, TemplateError
from jinja2.ext import Extension
from jinja2.utils import Namespace


def raise_exception(message: str) -> None:
    raise TemplateError(message)


def tojson(value: Any, ensure_ascii: bool = False, indent: int | None = None, separators: Any = None,
            sort_keys: bool = False) -> str:
    # HF's own tojson keeps key order and non-ASCII text (Jinja's default sorts and escapes).
    return json.dumps(value, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)


class GenerationBlock(Extension):
    """``{% generation %}...{% endgeneration %}``: marks the assistant's tokens for
    training masks; for a prompt it renders its body unchanged."""

    tags = {"generation"}

    def parse(self, parser: Any) -> nodes.Node:
        lineno = next(parser.stream).lineno
        body = parser.parse_statements(("name:endgeneration",), drop_needle=True)
        return nodes.CallBlock(self.call_method("_body"), [], [], body).set_lineno(lineno)

    def _body(self, caller: Any) -> str:
        return caller()


class TemplateDict:
    """``dict(...)`` in a template, without the class itself to climb from."""

    def __call__(self, *args: Any, **kwargs: Any) -> dict:
        return dict(*args, **kwargs)

    def fromkeys(self, *args: Any, **kwargs: Any) -> dict:
        return dict.fromkeys(*args, **kwargs)


class TemplateNamespace(Namespace):
    """``namespace(...)`` that refuses underscore attributes, as transformers' does."""

    def __init__(*args: Any, **kwargs: Any) -> None:  # noqa: N805 - Namespace's own signature trick
        self, rest = args[0], args[1:]
        attrs = dict(*rest, **kwargs)
        for name in attrs:
            TemplateNamespace._check(name)
        Namespace.__init__(self, attrs)

    def __setitem__(self, name: str, value: Any) -> None:
        TemplateNamespace._check(name)
        Namespace.__setitem__(self, name, value)

    @staticmethod
    def _check(name: Any) -> None:
        if isinstance(name, str) and name.startswith("_"):
            raise SecurityError(f"Chat templates cannot store underscore-prefixed attributes on a namespace, "
                                f"but got {name!r}. Please rename the attribute.")
