"""Game-file XML, parsed with defusedxml and read into plain `Node`s.

Game files come from users, so they are parsed with `defusedxml.ElementTree`, the library
made for untrusted XML, with every guard on: any document type declaration is refused
(that is where entity declarations, and so entity-expansion bombs and external entities,
live), and so are entity declarations and external references.  What is left is plain
elements, attributes and text; comments and processing instructions are dropped.  The
tree is handed on as `Node`s, which the schema check and the loader read.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from xml.etree.ElementTree import Element, ParseError

from defusedxml import DefusedXmlException
from defusedxml.ElementTree import fromstring


class XmlError(ValueError):
    """The bytes are not a well-formed XML document this reader is willing to read."""


@dataclass
class Node:
    """One element: `tag` and attribute names are `local` or `{namespace}local`."""

    tag: str
    attrs: dict[str, str]
    children: list["Node"] = field(default_factory=list)
    text: str = ""  # the character data directly inside this element, concatenated


def parse(data: bytes) -> Node:
    """The root element of the document in `data`; XmlError if it is malformed or unsafe."""
    if not isinstance(data, (bytes, bytearray)):
        raise XmlError("an XML document is bytes")
    try:
        root = fromstring(bytes(data), forbid_dtd=True, forbid_entities=True, forbid_external=True)
    except DefusedXmlException as error:
        raise XmlError(f"document type and entity declarations are not accepted: {error}") from None
    except ParseError as error:  # includes an undefined entity, two roots, no root
        raise XmlError(f"not well-formed XML: {error}") from None
    except (LookupError, ValueError) as error:  # an unknown or undecodable encoding
        raise XmlError(f"cannot decode the document: {error}") from None
    except (RecursionError, MemoryError):
        raise XmlError("document too deeply nested or too large") from None
    return _nodes(root)


def _nodes(root: Element) -> Node:
    """`root` and its descendants as Nodes (iteratively: nesting depth is up to the file)."""
    top = Node(root.tag, dict(root.attrib))
    pending = [(root, top)]
    while pending:
        element, node = pending.pop()
        text = [element.text or ""]
        for child in element:
            text.append(child.tail or "")
            child_node = Node(child.tag, dict(child.attrib))
            node.children.append(child_node)
            pending.append((child, child_node))
        node.text = "".join(text)
    return top
