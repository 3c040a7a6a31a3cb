"""The document being edited: undoable edits, selection, and recomputation.

Every edit goes through `edit()`, which keeps structural snapshots of the document
before and after in a QUndoCommand (app/snapshots: containers copied, tensors shared
and read-only), so undo restores the exact document (saving after undoing everything
writes the original bytes) without copying a single tensor; with it, what the rooms
showed on either side (`keep_view`: the cards the canvas placed, the zoom and the scroll,
the story step) and the selection, so undo and redo lay nothing out afresh and select what
was selected there. After each edit the
document is validated and run through the engine, unless the edit changed nothing the
engine reads (a move, a label); `evaluated` carries the result to the widgets. The
backprop story is assembled from the recorded backward pass only when first asked for.
"""
import copy
import time

import numpy as np
from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QUndoCommand, QUndoStack

from ..graph import catalog, fileformat
from ..graph.tensors import dims
from ..graph.compiled import Replayer
from ..graph.document import (CONSTANT, CUSTOM_GRADIENT, LAYER, OP, VARIABLE, Document, Edge,
                              Node, Port, text_problem)
from .evaluation import (Basis, Result, checked, evaluated_result, reaches, retexted, shape_problem,
                         structure_problems_for, teller)
from .snapshots import same_for_engine, same_names, snapshot



class _Snapshot(QUndoCommand):
    """One edit: the document before and after, and what the user saw on either side as they
    last saw it (`seen`: the selection, and what the rooms showed, `keep_view`). Consecutive
    moves of the same nodes merge."""

    MOVE_ID = 1

    def __init__(self, controller, text, before, after, merge_key=None, seen=None):
        super().__init__(text)
        self._controller = controller
        self._before = before
        self._after = after
        self._merge_key = merge_key
        self._first = True
        self._seen_before = seen       # taken as the edit began; again as each redo begins
        self._seen_after = None        # taken as each undo begins

    def id(self):
        return self.MOVE_ID if self._merge_key is not None else -1

    def mergeWith(self, other):
        if other._merge_key != self._merge_key:
            return False
        self._after = other._after
        self.setText(other.text())  # a run's entry names all its steps, in the menu too
        return True

    def redo(self):
        if self._first:  # the edit was already applied by the controller
            self._first = False
            return
        self._seen_before = self._controller.seen()
        self._controller._restore(self._after, f"Redo {self.text()}", self._seen_after)

    def undo(self):
        self._seen_after = self._controller.seen()
        self._controller._restore(self._before, f"Undo {self.text()}", self._seen_before)


def _refuse_text(what, text):
    """Text the file format would refuse is never put in the document (it would be saved
    and then refused on open, and on recovery). The inspector says why as the user types;
    this is the guard for every other caller."""
    problem = text_problem(what, text)
    if problem:
        raise ValueError(problem)


class DocumentController(QObject):
    """Owns the Document, its undo stack, its file path and the current selection."""

    documentReplaced = Signal()        # a new document (open, new); undo and redo are changes
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
        self.lesson = None           # the bundled lesson the document was opened from
        self.undo_stack = QUndoStack(self)
        self.undo_stack.cleanChanged.connect(self._clean_changed)
        self.selection = []
        # True while selectionChanged announces nodes the edit itself made (add, paste,
        # duplicate): a panel may show them after the canvas has.
        self.selecting_new = False
        self.result = Result()
        self._basis = None
        # A value edit replays the compiled evaluation of the document's form once the
        # form has been evaluated a few times (a drag through numbers, a training run's
        # previews); the trace runs on a thread of its own.
        self.replayer = Replayer(trace_at=3, background=True)
        self._last_edit = None   # the edit just made (not undone or redone since): amend_last_edit
        self.replaying = ""      # while an undo or redo restores the document: 'Undo Move'
        # story_ending(story) -> story: what the story of every later evaluation ends with
        # (a training step's update, app/training); it returns the story as it is where it
        # does not hold.
        self.story_ending = None
        self._view_keepers = []  # the rooms whose view undo and redo put back: keep_view

    def _clean_changed(self, clean):
        self.dirtyChanged.emit(not clean)

    # -- documents ---------------------------------------------------------------------
    @property
    def dirty(self):
        return not self.undo_stack.isClean()

    def set_document(self, doc, path=None, lesson=None, prepared=None):
        """Replace the document (New, Open): the undo history starts afresh. `lesson`: the
        bundled sample it was opened from (it has no file of the user's, yet is no unsaved
        work while untouched). `prepared`: `prepare(doc)`, made off the UI thread."""
        if prepared is not None:
            self._basis = prepared   # recompute reuses it: the engine sees the same document
        self.doc = doc
        self.path = str(path) if path else None
        self.lesson = lesson if not path else None
        self.undo_stack.clear()
        self.undo_stack.setClean()
        self._last_edit = None
        self.selection = []
        self.documentReplaced.emit()
        self.pathChanged.emit(self.path or "")
        self.selectionChanged.emit([])
        self.changed.emit()
        # the time it says includes the evaluation made off the UI thread
        self.recompute(spent_ms=0.0 if prepared is None else prepared.result.elapsed_ms)

    def open(self, path):
        """Load a file (raises graph.DocumentError with a message naming the place)."""
        self.set_document(fileformat.load(path, strict=False), path)

    def save(self, path=None):
        path = str(path or self.path)
        fileformat.save(self.doc, path)
        self.saved(path)

    def saved(self, path):
        """The document (as it was when a save began: nothing changes it meanwhile) is
        now in the file `path`."""
        self.path = path
        self.lesson = None
        self.undo_stack.setClean()
        self.pathChanged.emit(path)
        self.message.emit(f"Saved {path}")

    def text(self):
        return fileformat.dumps(self.doc)

    # -- what the rooms show on either side of an edit -------------------------------------
    def keep_view(self, keeper):
        """Undo and redo put back what room `keeper` showed on the side they return to, as the
        user last saw it there, and the room lays nothing out afresh: `keeper.view()` is what
        it shows now (taken as each edit, undo or redo begins); `keeper.restore_view(view)` is
        called before the restored document is announced (a canvas keeps the places of the
        cards that the document leaves for it to place), `keeper.view_restored(view)` once
        every widget has followed it (the zoom and the scroll)."""
        self._view_keepers.append(keeper)

    def seen(self):
        """What undo and redo put back of what the user sees now: the selection, and what
        every room that keeps its view shows (`keep_view`)."""
        return list(self.selection), [keeper.view() for keeper in self._view_keepers]

    # -- editing -----------------------------------------------------------------------
    def edit(self, text, change, merge_key=None, select=None):
        """Apply `change(doc)` as one undoable edit named `text`; returns change's result.

        `change` may rebind anything in the document but must replace a tensor rather
        than write into it (the snapshots share tensors, read-only). `select(result)`:
        the node ids to select, selected before the widgets hear of the new result, so
        that they update once (an inspector builds the new node's page, not two pages)."""
        before, seen = snapshot(self.doc), self.seen()
        result = change(self.doc)
        after = snapshot(self.doc)
        self.undo_stack.push(_Snapshot(self, text, before, after, merge_key, seen))
        self._last_edit = self.undo_stack.command(self.undo_stack.index() - 1)
        old_selection = self.selection
        if select is not None:
            self.selection = [i for i in select(result) if i in self.doc.nodes]
        self.changed.emit()
        self.recompute(after)
        if self.selection != old_selection:
            self.selecting_new = bool(self.selection) and not set(self.selection) & set(before.nodes)
            try:
                self.selectionChanged.emit(list(self.selection))
            finally:
                self.selecting_new = False
        return result

    def _restore(self, state, replaying, seen=None):
        """Undo / redo: the document object stays, its content becomes `state`'s; the
        selection and the rooms are what `seen` says the user saw with it (`seen`; None:
        nothing seen, the selection keeps the nodes that remain)."""
        self.doc.__dict__.update(snapshot(state).__dict__)
        self._last_edit = None
        old_selection = self.selection
        selection, views = seen if seen is not None else (self.selection, ())
        self.selection = [n for n in selection if n in self.doc.nodes]
        kept = list(zip(self._view_keepers, views))
        self.replaying = replaying
        try:
            for keeper, view in kept:
                keeper.restore_view(view)
            self.changed.emit()
            self.recompute(state)
        finally:
            self.replaying = ""
        if self.selection != old_selection:  # after the result, as in `edit`
            self.selectionChanged.emit(list(self.selection))
        for keeper, view in kept:
            keeper.view_restored(view)

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
        self.edit(f"Add {node.title}", lambda doc: doc.add(node), select=lambda _: [node.id])
        return node.id

    def add_nodes(self, nodes, edges=(), text="Paste"):
        """Insert copies of `nodes` (and edges among them) with fresh ids; returns the ids."""
        def change(doc):
            renamed = {}
            for n in nodes:
                n = copy.deepcopy(n)
                new = n.id if n.id not in doc.nodes else doc.new_id(n.id)
                renamed[n.id] = new
                n.id = new
                doc.add(n)
            for e in edges:
                if e.src.node in renamed and e.dst.node in renamed:
                    doc.edges.append(Edge(Port(renamed[e.src.node], e.src.index),
                                          Port(renamed[e.dst.node], e.dst.index)))
            return list(renamed.values())
        return self.edit(text, change, select=lambda ids: ids)

    def remove_nodes(self, ids):
        ids = [i for i in ids if i in self.doc.nodes]
        if not ids:
            return

        def change(doc):
            for i in ids:
                doc.remove(i)
        self.edit("Delete" if len(ids) > 1 else f"Delete {self.name(ids[0])}", change,
                  select=lambda _: [])

    def name(self, node_id):
        """A node's name for the reader (its label), in undo texts and messages."""
        node = self.doc.nodes.get(node_id)
        return (node.label or node.id) if node is not None else str(node_id)

    def connection_problem(self, src, dst):
        """Why output `src` cannot feed input `dst` (Ports), in words; None when it can."""
        doc = self.doc
        if src.node not in doc.nodes or dst.node not in doc.nodes:
            return "that node no longer exists"
        if src.node == dst.node:
            return "a node cannot feed itself"
        if reaches(doc, dst.node, src.node):
            return (f"this would make a cycle: '{self.name(src.node)}' already depends on "
                    f"'{self.name(dst.node)}'")
        trial = snapshot(doc)
        trial.connect(src.node, dst.node, src.index, dst.index)
        problems = structure_problems_for(trial, dst.node, ignore_missing=True)
        if problems:
            return problems[0]
        basis = self._basis
        current = basis is not None and same_for_engine(basis.doc, doc)
        return shape_problem(trial, dst.node, basis.result.evaluation if current else None)

    def connect(self, src, dst):
        """Connect if allowed; returns None on success or the reason it was refused."""
        problem = self.connection_problem(src, dst)
        if problem:
            self.message.emit(problem)
            return problem
        self.edit(f"Connect {self.name(src.node)} → {self.name(dst.node)}",
                  lambda doc: doc.connect(src.node, dst.node, src.index, dst.index))
        return None

    def disconnect(self, edge):
        self.edit(f"Disconnect {self.name(edge.src.node)} → {self.name(edge.dst.node)}",
                  lambda doc: doc.edges.remove(edge) if edge in doc.edges else None)

    def set_attr(self, node_id, name, value):
        """Set one attribute. A value of the right kind outside its range (a pool's padding
        'relu', a dropout rate of 1.5) is not set, as the file format would refuse the
        document: its problem in words is returned. (A value of the wrong kind is held and
        shown as a problem on the node, as before.)"""
        node = self.doc.nodes[node_id]
        kind = catalog.defaults_and_kinds(node)[1].get(name)
        if kind is not None and catalog.check_attr(kind, value) is None:
            problem = catalog.attr_problem(node.op, name, value)
            if problem:
                return f"attribute {name!r}: {problem}"

        def change(doc):
            doc.nodes[node_id].attrs[name] = value
        self.edit(f"Set {self.name(node_id)}.{name}", change)

    def set_field(self, node_id, name, value):
        """Set a plain node field: label, watched, trainable, op."""
        if name == "label":
            _refuse_text("label", value)

        def change(doc):
            setattr(doc.nodes[node_id], name, value)
        self.edit(f"Set {self.name(node_id)} {name}", change)

    def set_value(self, node_id, array, weight=None):
        array = np.array(array)
        node = self.doc.nodes[node_id]
        old = node.value if weight is None else (node.weights or {}).get(weight)

        def change(doc):
            node = doc.nodes[node_id]
            if weight is None:
                node.value = array
            else:
                node.weights[weight] = array
        self.edit(_value_edit_text(f"{self.name(node_id)}{'.' + weight if weight else ''}",
                                   old, array), change)

    def move_nodes(self, positions, merge=True):
        """{node id: (x, y)}; a drag is many moves that undo as one."""
        def change(doc):
            for nid, pos in positions.items():
                if nid in doc.nodes:
                    doc.nodes[nid].position = (round(float(pos[0]), 1), round(float(pos[1]), 1))
        key = tuple(sorted(positions)) if merge else None
        self.edit("Move", change, merge_key=key)

    def amend_last_edit(self, positions):
        """Fold moves that the last edit made necessary (its cards grew over others) into
        that edit, so one undo puts everything back. Refused (False) once the edit was
        undone, redone or followed by another: those restore positions as they were."""
        stack, cmd = self.undo_stack, self._last_edit
        if cmd is None or stack.index() != stack.count() or stack.command(stack.index() - 1) is not cmd:
            return False
        for nid, pos in positions.items():
            if nid in self.doc.nodes:
                self.doc.nodes[nid].position = (round(float(pos[0]), 1), round(float(pos[1]), 1))
        cmd._after = snapshot(self.doc)
        self.changed.emit()
        return True

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
        for what, text in (("title", title), ("lesson", lesson)):
            if text is not None:
                _refuse_text(what, text)

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
    def recompute(self, frozen=None, spent_ms=0.0):
        """Validate, evaluate (the story waits until asked for); emit `evaluated`.

        `frozen`: a snapshot equal to the document, when the caller has one. When the
        engine would see the same document as last time, the last evaluation is reused.
        `spent_ms`: the time the evaluation it reuses took (`prepare`), counted in the
        time the result says it took.
        """
        start = time.perf_counter()
        frozen = snapshot(self.doc) if frozen is None else frozen
        basis = self._basis
        if basis is not None and same_for_engine(basis.doc, frozen):
            last, latest = basis.result, basis.latest
            story = latest._story if latest.story_ready and same_names(basis.doc, frozen) else None
            tell = None if story is not None or last.evaluation is None else \
                teller(frozen, last.evaluation, basis.events, self.story_ending)
            result = Result(last.evaluation, retexted(last.problems, basis.evaluated, frozen), story, tell)
            result.numbers_spec = last.numbers_spec
            if same_names(basis.doc, frozen):   # a move: the cards are as they were
                result.content = basis.content
            basis.doc, basis.content, basis.latest = frozen, result.content, result
        else:
            result, events = evaluated_result(frozen, checked(basis, frozen), self.story_ending,
                                       self.replayer)
            self._basis = Basis(frozen, result, events)
        result.name_nodes(result.problems, frozen)
        result.elapsed_ms = spent_ms + (time.perf_counter() - start) * 1000
        self.result = result
        self.evaluated.emit(result)
        return result


def prepare(doc):
    """The evaluation of `doc` that `set_document(doc, prepared=…)` shows, made where the
    caller likes: it touches no widget, so a document of large tensors is evaluated off
    the UI thread (three 1000 x 1000 tensors: seconds) while the window stays painted."""
    start = time.perf_counter()
    frozen = snapshot(doc)
    result, events = evaluated_result(frozen)
    result.elapsed_ms = (time.perf_counter() - start) * 1000
    return Basis(frozen, result, events)


def _value_edit_text(name, old, new):
    """What Edit ▸ Undo calls a new value of `name`: 'Reshape x from 3×4 to 2×6', 'Resize x
    from 3×4 to 3×5', 'Convert x from float32 to int32', else 'Edit x values'."""
    if old is not None and np.shape(old) != new.shape:
        verb = "Reshape" if np.size(old) == new.size else "Resize"
        return f"{verb} {name} from {dims(np.shape(old))} to {dims(new.shape)}"
    if old is not None and np.asarray(old).dtype != new.dtype:
        return f"Convert {name} from {np.asarray(old).dtype.name} to {new.dtype.name}"
    return f"Edit {name} values"
