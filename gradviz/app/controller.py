"""The document being edited: undoable edits, selection, and recomputation.

Every edit goes through `edit()`, which snapshots the document before and after
into a QUndoCommand, so undo restores the exact document (saving after undoing
everything writes the original bytes). After each edit the document is validated
and run through the engine; `evaluated` carries the result to the widgets.
"""
import copy
import time
from dataclasses import dataclass, field

import numpy as np
from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QUndoCommand, QUndoStack

from ..graph import catalog, fileformat
from ..graph.document import (CONSTANT, CUSTOM_GRADIENT, LAYER, OP, VARIABLE, Document, Edge,
                              Node, Port)
from ..graph.validate import structure_problems


@dataclass
class Result:
    """What the last recomputation found; widgets read it, never the engine directly."""

    story: object = None              # story.Story, or None when the document cannot run
    evaluation: object = None         # graph.Evaluation (values, gradients, tensors)
    problems: list = field(default_factory=list)          # [graph.Problem]
    node_problems: dict = field(default_factory=dict)     # node id -> [message]
    elapsed_ms: float = 0.0

    @property
    def ok(self):
        return not self.problems


class _Snapshot(QUndoCommand):
    """One edit: the document before and after. Consecutive moves of the same nodes merge."""

    MOVE_ID = 1

    def __init__(self, controller, text, before, after, merge_key=None):
        super().__init__(text)
        self._controller = controller
        self._before = before
        self._after = after
        self._merge_key = merge_key
        self._first = True

    def id(self):
        return self.MOVE_ID if self._merge_key is not None else -1

    def mergeWith(self, other):
        if other._merge_key != self._merge_key:
            return False
        self._after = other._after
        return True

    def redo(self):
        if self._first:  # the edit was already applied by the controller
            self._first = False
            return
        self._controller._restore(self._after)

    def undo(self):
        self._controller._restore(self._before)


class DocumentController(QObject):
    """Owns the Document, its undo stack, its file path and the current selection."""

    documentReplaced = Signal()        # new document object (open, new, undo/redo)
    changed = Signal()                 # the document changed in any way
    evaluated = Signal(object)         # Result
    selectionChanged = Signal(list)    # [node id]
    pathChanged = Signal(str)
    dirtyChanged = Signal(bool)
    message = Signal(str)              # a status-bar message

    def __init__(self, doc=None, parent=None):
        super().__init__(parent)
        self.doc = doc if doc is not None else Document()
        self.path = None
        self.undo_stack = QUndoStack(self)
        self.undo_stack.cleanChanged.connect(self._clean_changed)
        self.selection = []
        self.result = Result()
        self._batch = None

    def _clean_changed(self, clean):
        self.dirtyChanged.emit(not clean)

    # -- documents ---------------------------------------------------------------------
    @property
    def dirty(self):
        return not self.undo_stack.isClean()

    def set_document(self, doc, path=None):
        """Replace the document (New, Open): the undo history starts afresh."""
        self.doc = doc
        self.path = str(path) if path else None
        self.undo_stack.clear()
        self.undo_stack.setClean()
        self.selection = []
        self.documentReplaced.emit()
        self.pathChanged.emit(self.path or "")
        self.selectionChanged.emit([])
        self.changed.emit()
        self.recompute()

    def open(self, path):
        """Load a file (raises graph.DocumentError with a message naming the place)."""
        self.set_document(fileformat.load(path, strict=False), path)

    def save(self, path=None):
        path = str(path or self.path)
        fileformat.save(self.doc, path)
        self.path = path
        self.undo_stack.setClean()
        self.pathChanged.emit(path)
        self.message.emit(f"Saved {path}")

    def text(self):
        return fileformat.dumps(self.doc)

    # -- editing -----------------------------------------------------------------------
    def edit(self, text, change, merge_key=None):
        """Apply `change(doc)` as one undoable edit named `text`; returns change's result."""
        before = copy.deepcopy(self.doc)
        result = change(self.doc)
        after = copy.deepcopy(self.doc)
        self.undo_stack.push(_Snapshot(self, text, before, after, merge_key))
        self.changed.emit()
        self.recompute()
        return result

    def _restore(self, snapshot):
        self.doc = copy.deepcopy(snapshot)
        self.selection = [n for n in self.selection if n in self.doc.nodes]
        self.documentReplaced.emit()
        self.selectionChanged.emit(list(self.selection))
        self.changed.emit()
        self.recompute()

    def make_node(self, kind, op="", position=None):
        """A new node with sensible defaults (a 2x2 float32 zero tensor for inputs)."""
        stem = {CONSTANT: "x", VARIABLE: "w", LAYER: "layer", CUSTOM_GRADIENT: "grad"}.get(kind)
        stem = stem or (op.split(".")[-1] if op else "n")
        node = Node(id=self.doc.new_id(stem), kind=kind, op=op, position=position)
        if kind in (CONSTANT, VARIABLE):
            node.value = np.zeros((2, 2), np.float32)
        if kind in (OP, LAYER, CUSTOM_GRADIENT):
            node.attrs = dict(catalog.defaults_and_kinds(node)[0])
        return node

    def add_node(self, kind, op="", position=None):
        node = self.make_node(kind, op, position)
        self.edit(f"Add {node.title}", lambda doc: doc.add(node))
        self.set_selection([node.id])
        return node.id

    def add_nodes(self, nodes, edges=(), text="Paste"):
        """Insert copies of `nodes` (and edges among them) with fresh ids; returns the ids."""
        def change(doc):
            renamed = {}
            for n in nodes:
                n = copy.deepcopy(n)
                new = n.id if n.id not in doc.nodes else doc.new_id(n.id.rstrip("0123456789") or "n")
                renamed[n.id] = new
                n.id = new
                doc.add(n)
            for e in edges:
                if e.src.node in renamed and e.dst.node in renamed:
                    doc.edges.append(Edge(Port(renamed[e.src.node], e.src.index),
                                          Port(renamed[e.dst.node], e.dst.index)))
            return list(renamed.values())
        ids = self.edit(text, change)
        self.set_selection(ids)
        return ids

    def remove_nodes(self, ids):
        ids = [i for i in ids if i in self.doc.nodes]
        if not ids:
            return

        def change(doc):
            for i in ids:
                doc.remove(i)
        self.edit("Delete" if len(ids) > 1 else f"Delete {ids[0]}", change)
        self.set_selection([])

    def connection_problem(self, src, dst):
        """Why output `src` cannot feed input `dst` (Ports), in words; None when it can."""
        doc = self.doc
        if src.node not in doc.nodes or dst.node not in doc.nodes:
            return "that node no longer exists"
        if src.node == dst.node:
            return "a node cannot feed itself"
        if _reaches(doc, dst.node, src.node):
            return (f"this would make a cycle: '{src.node}' already depends on '{dst.node}'")
        trial = copy.deepcopy(doc)
        trial.connect(src.node, dst.node, src.index, dst.index)
        if structure_problems_for(trial, dst.node, ignore_missing=True):
            return structure_problems_for(trial, dst.node, ignore_missing=True)[0]
        return _shape_problem(trial, dst.node)

    def connect(self, src, dst):
        """Connect if allowed; returns None on success or the reason it was refused."""
        problem = self.connection_problem(src, dst)
        if problem:
            self.message.emit(problem)
            return problem
        self.edit(f"Connect {src.node} → {dst.node}",
                  lambda doc: doc.connect(src.node, dst.node, src.index, dst.index))
        return None

    def disconnect(self, edge):
        self.edit(f"Disconnect {edge.src.node} → {edge.dst.node}",
                  lambda doc: doc.edges.remove(edge) if edge in doc.edges else None)

    def set_attr(self, node_id, name, value):
        def change(doc):
            doc.nodes[node_id].attrs[name] = value
        self.edit(f"Set {node_id}.{name}", change)

    def set_field(self, node_id, name, value):
        """Set a plain node field: label, watched, trainable, op."""
        def change(doc):
            setattr(doc.nodes[node_id], name, value)
        self.edit(f"Set {node_id} {name}", change)

    def set_value(self, node_id, array, weight=None):
        array = np.array(array)

        def change(doc):
            node = doc.nodes[node_id]
            if weight is None:
                node.value = array
            else:
                node.weights[weight] = array
        self.edit(f"Edit {node_id}{'.' + weight if weight else ''} values", change)

    def move_nodes(self, positions, merge=True):
        """{node id: (x, y)}; a drag is many moves that undo as one."""
        def change(doc):
            for nid, pos in positions.items():
                if nid in doc.nodes:
                    doc.nodes[nid].position = (round(float(pos[0]), 1), round(float(pos[1]), 1))
        key = tuple(sorted(positions)) if merge else None
        self.edit("Move", change, merge_key=key)

    def end_move(self):
        """Stop merging moves (call on mouse release) so the next drag is its own undo step."""
        cmd = self.undo_stack.command(self.undo_stack.index() - 1)
        if isinstance(cmd, _Snapshot):
            cmd._merge_key = None

    def set_ports(self, role, ports):
        """role 'targets' or 'sources': the document's list of Ports."""
        def change(doc):
            setattr(doc, role, list(ports))
            if role == "targets":
                doc.output_gradients = {p: v for p, v in doc.output_gradients.items() if p in ports}
        self.edit(f"Set {role}", change)

    def toggle_port(self, role, port):
        ports = list(getattr(self.doc, role))
        ports.remove(port) if port in ports else ports.append(port)
        self.set_ports(role, ports)

    def set_output_gradient(self, port, array):
        def change(doc):
            if array is None:
                doc.output_gradients.pop(port, None)
            else:
                doc.output_gradients[port] = np.array(array)
        self.edit("Set output_gradients", change)

    def set_tape(self, **settings):
        def change(doc):
            for k, v in settings.items():
                setattr(doc.tape, k, v)
        self.edit("Tape settings", change)

    def set_meta(self, title=None, lesson=None):
        def change(doc):
            if title is not None:
                doc.title = title
            if lesson is not None:
                doc.lesson = lesson
        self.edit("Document info", change)

    # -- selection ---------------------------------------------------------------------
    def set_selection(self, ids):
        ids = [i for i in ids if i in self.doc.nodes]
        if ids != self.selection:
            self.selection = ids
            self.selectionChanged.emit(list(ids))

    # -- recomputation -----------------------------------------------------------------
    def recompute(self):
        """Validate, evaluate and tell the backprop story; emit `evaluated`."""
        from ..story import build
        start = time.perf_counter()
        result = Result()
        problems = structure_problems(self.doc)
        if not problems:
            try:
                story = build(self.doc)
            except Exception as e:  # the engine refused: keep editing, show the reason
                from ..graph.errors import DocumentError, Problem
                problems = [e.problem if isinstance(e, DocumentError)
                            else Problem(f"{type(e).__name__}: {e}", where="evaluation")]
            else:
                result.story, result.evaluation = story, story.evaluation
                problems = list(story.problems)
        else:
            result.evaluation = _forward_only(self.doc, problems)
        result.problems = problems
        for p in problems:
            if p.node:
                result.node_problems.setdefault(p.node, []).append(p.message)
        result.elapsed_ms = (time.perf_counter() - start) * 1000
        self.result = result
        self.evaluated.emit(result)
        return result


def _forward_only(doc, problems):
    """Values of the nodes that can run while the document is incomplete (no gradients)."""
    from ..graph.build import build
    from ..graph.errors import DocumentError
    from ..graph.evaluate import Evaluation
    try:
        built = build(doc)
    except DocumentError:
        return None  # a cycle: nothing runs
    flagged = {p.node for p in problems}
    problems.extend(p for p in built.problems if p.node not in flagged and p not in problems)
    return Evaluation(values={p: t._value for p, t in built.tensors.items()},
                      tensors=built.tensors)


def _reaches(doc, start, goal):
    """True when `goal` is downstream of `start` (following edges forward)."""
    seen, stack = set(), [start]
    while stack:
        nid = stack.pop()
        if nid == goal:
            return True
        if nid in seen:
            continue
        seen.add(nid)
        stack.extend(e.dst.node for e in doc.edges if e.src.node == nid)
    return False


def structure_problems_for(doc, node_id, ignore_missing=False):
    """Structural problems that concern `node_id` or its incoming edges, as text."""
    out = []
    for p in structure_problems(doc):
        mentions = p.node == node_id or (p.edge and f"{node_id}" in str(p.edge))
        if not mentions:
            continue
        if ignore_missing and "is not connected" in p.message:
            continue
        out.append(p.message)
    return out


def _shape_problem(doc, node_id):
    """Run the inputs that are complete through the engine; a refusal at `node_id` in words."""
    from ..graph.build import build
    fixed_inputs = [e for e in doc.edges if e.dst.node == node_id]
    node = doc.nodes[node_id]
    needed, _ = _input_count(node)
    if len(fixed_inputs) < needed:
        return None  # not all inputs are there yet: nothing to check
    try:
        built = build(doc)
    except Exception as e:  # noqa: BLE001 (any refusal becomes a message)
        return str(e)
    for p in built.problems:
        if p.node == node_id:
            return p.message
    return None


def _input_count(node):
    from ..graph.build import input_slots
    return input_slots(node)
