"""Documents whose node ids can be seen: every id becomes 'zqidN' (the node keeps its
name as its label), so any text that shows an id instead of a name is caught by `leaks`."""
import json
import re
from pathlib import Path

from gradviz.graph import fileformat
from gradviz.graph.names import file_ids

SAMPLES = sorted((Path(__file__).resolve().parents[1] / "gradviz" / "samples").glob("*.json"))
_ID = re.compile(r".{0,40}zqid\d+.{0,40}")


def _port(text, ids):
    node, colon, index = text.partition(":")
    return ids[node] + colon + index


def hide_ids(doc):
    """`doc` with every node id replaced by 'zqidN'; names, edges, roles and studies kept."""
    obj = json.loads(fileformat.dumps(doc))
    for n in obj["nodes"]:
        n["label"] = n.get("label") or n["id"]
    return fileformat.loads(json.dumps(with_ids(obj, {n["id"]: f"zqid{i}"
                                                      for i, n in enumerate(obj["nodes"])})))


def file_with_memory_ids(doc):
    """The JSON object of `doc`'s file with the ids `doc` has in memory, not its names (a
    file written by hand, or by a gradviz before the file named nodes by their labels)."""
    return with_ids(json.loads(fileformat.dumps(doc)),
                    {written: nid for nid, written in file_ids(doc).items()})


def with_ids(obj, ids):
    """A document's JSON object `obj` with its node ids renamed by `ids` ({id: new id}) in
    every place the file names a node."""
    for n in obj["nodes"]:
        n["id"] = ids[n["id"]]
    for e in obj["edges"]:
        e["from"], e["to"] = _port(e["from"], ids), _port(e["to"], ids)
    obj["targets"] = [_port(p, ids) for p in obj["targets"]]
    obj["sources"] = [_port(p, ids) for p in obj["sources"]]
    obj["output_gradients"] = {_port(p, ids): v for p, v in obj["output_gradients"].items()}
    obj["tape"]["stop_recording"] = [ids[n] for n in obj["tape"]["stop_recording"]]
    for spec in obj["studies"].values():
        for key in ("source", "target"):
            if key in spec:
                spec[key] = _port(spec[key], ids)
    return obj


def leaks(text):
    """The places in `text` that show a node id."""
    return _ID.findall(text)
