"""The port choosers that head a study view, and the row that wraps them to its width."""
import html

from PySide6.QtWidgets import QComboBox, QHBoxLayout, QVBoxLayout

from ...graph.errors import DocumentError
from ...graph.names import port_names
from ...graph.ports import parse_port


def rich_names(*choosers):
    """The chosen ports' names for the view's rich text (banners, captions, pyqtgraph's
    axis titles): escaped, so 'a<b' or 'x & y' reads as written."""
    return tuple(html.escape(c.currentText(), quote=False) for c in choosers)


def port_label(doc, port):
    """The reader's name of a port: 'W1', 'layer.kernel', 'split:1' (labels, not ids)."""
    return port_names(doc, [port])[port]


def study_ports(doc, study, role):
    """The ports a chooser offers: the study's own first, then the document's targets/sources."""
    ports = []
    spec = doc.studies.get(study, {})
    key = "target" if role == "targets" else "source"
    if key in spec:
        try:
            ports.append(parse_port(spec[key], f"studies.{study}"))
        except DocumentError:
            pass
    for p in getattr(doc, role):
        if p not in ports:
            ports.append(p)
    return ports



class ChooserRow(QVBoxLayout):
    """A view's choosers and its Export View… button: one row where they fit the width,
    else as many rows as they need (greedy, in order): in a narrow column no chooser is
    cut or pushes the view wider."""

    def __init__(self, groups):
        super().__init__()
        self.setSpacing(4)
        self.groups = groups    # lists of widgets that stay together (a label and its box)
        self._rows = None
        self.wrap(10 ** 6)

    @staticmethod
    def _width(group, spacing):
        return sum(w.sizeHint().width() for w in group) + spacing * (len(group) - 1)

    def wrap(self, width):
        """Lay the groups out in rows no wider than `width`; the button closes the last row."""
        spacing, rows, used = 6, [[]], 0
        for group in self.groups:
            need = self._width(group, spacing)
            if rows[-1] and used + spacing + need > width:
                rows.append([])
                used = 0
            rows[-1].append(group)
            used += need + (spacing if used else 0)
        shape = [len(row) for row in rows]
        if shape == self._rows:
            return
        self._rows = shape
        while self.count():
            row = self.takeAt(0).layout()
            while row.count():
                row.takeAt(0)
            row.deleteLater()
        for groups in rows:
            row = QHBoxLayout()
            row.setSpacing(spacing)
            for group in groups:
                if group is self.groups[-1]:
                    row.addStretch(1)      # the button at the right
                for widget in group:
                    row.addWidget(widget)
            if groups[-1] is not self.groups[-1]:
                row.addStretch(1)
            self.addLayout(row)


class PortChooser(QComboBox):
    def __init__(self, parent=None):
        super().__init__(parent)
        self.setSizeAdjustPolicy(QComboBox.AdjustToContents)

    def set_ports(self, doc, ports):
        current = self.port()
        self.blockSignals(True)
        self.clear()
        for p in ports:
            self.addItem(port_label(doc, p), p)
        if current in ports:
            self.setCurrentIndex(ports.index(current))
        self.blockSignals(False)

    def port(self):
        return self.currentData() if self.count() else None
