"""A small, hardened XML reader on the standard library's expat.

Game files come from users, so the reader refuses anything that can make a parser do
more than read the bytes it was given: a document type declaration (which is where
entity declarations, and so entity-expansion bombs and external entities, live), entity
and notation declarations, and references to external entities.  What is left is plain
elements, attributes, text, comments and processing instructions, read into `Node`s.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from xml.parsers import expat


class XmlError(ValueError):
    """The bytes are not a well-formed XML document this reader is willing to read."""


@dataclass
class Node:
    """One element: `tag` and attribute names are `local` or `{namespace}local`."""

    tag: str
    attrs: dict[str, str]
    children: list["Node"] = field(default_factory=list)
    text: str = ""  # the character data directly inside this element, concatenated


def _name(raw: str) -> str:
    """expat's 'namespace}local' (see namespace_separator) as '{namespace}local'."""
    if "}" in raw:
        uri, local = raw.rsplit("}", 1)
        return "{" + uri + "}" + local
    return raw


def parse(data: bytes) -> Node:
    """The root element of the document in `data`; XmlError if it is malformed or unsafe."""
    if not isinstance(data, (bytes, bytearray)):
        raise XmlError("an XML document is bytes")
    parser = expat.ParserCreate(namespace_separator="}")
    parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
    parser.buffer_text = True
    stack: list[Node] = []
    chunks: list[list[str]] = []
    roots: list[Node] = []

    def refuse(*_args):
        raise XmlError("document type and entity declarations are not accepted")

    def start(name, attributes):
        node = Node(_name(name), {_name(key): value for key, value in attributes.items()})
        if stack:
            stack[-1].children.append(node)
        else:
            roots.append(node)
        stack.append(node)
        chunks.append([])

    def end(_name_):
        stack.pop().text = "".join(chunks.pop())

    def characters(text):
        if chunks:
            chunks[-1].append(text)

    parser.StartDoctypeDeclHandler = refuse
    parser.EntityDeclHandler = refuse
    parser.UnparsedEntityDeclHandler = refuse
    parser.NotationDeclHandler = refuse
    parser.ExternalEntityRefHandler = refuse
    parser.SkippedEntityHandler = refuse
    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.CharacterDataHandler = characters
    try:
        parser.Parse(bytes(data), True)
    except XmlError:
        raise
    except expat.ExpatError as error:
        raise XmlError(f"not well-formed XML: {error}") from None
    except (LookupError, ValueError) as error:  # an unknown or undecodable encoding
        raise XmlError(f"cannot decode the document: {error}") from None
    except (RecursionError, MemoryError):
        raise XmlError("document too deeply nested or too large") from None
    if len(roots) != 1 or stack:
        raise XmlError("a document has exactly one root element")
    return roots[0]
