"""How a port is written in files and messages: 'node' for output 0, 'node:1' for another.

Below the file format and validation, which both read and write ports.
"""
import re

from .document import Port
from .errors import DocumentError, shown

ID_LENGTH = 64   # characters of a node id
ID = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-]{0,%d}" % (ID_LENGTH - 1))   # a node id


def port_text(port):
    return port.node if port.index == 0 else f"{port.node}:{port.index}"


INDEX = re.compile(r"[0-9]{1,6}")  # ASCII digits only: int() would also read '١' as 1


def parse_port(text, where):
    if not isinstance(text, str) or not ID.fullmatch(text.partition(":")[0]):
        raise DocumentError(f"expected a port such as 'node' or 'node:1', got {shown(text, 80)}",
                            where=where)
    name, colon, index = text.partition(":")
    if not colon:
        return Port(name, 0)
    if not INDEX.fullmatch(index):
        raise DocumentError(f"bad output index in port {shown(text, 80)} (write 'node:1' with "
                            "digits 0-9)", where=where)
    return Port(name, int(index))
