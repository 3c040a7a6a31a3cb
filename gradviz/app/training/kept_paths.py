"""The paths of earlier runs on the Landscape tab, each in its own colour with its optimizer
and settings in the key, so runs can be compared on one surface (lesson 22: "Compare the
three paths"). A run's path is kept when its trainer goes (Reset, another optimizer, an
edit) or is rewound by Undo; the paths stay until Clear paths, or until the coordinates
they are drawn over change (another document, another structure)."""
import numpy as np
import pyqtgraph as pg

from ...graph.training import hyper_parameters, optimizer_kind
from ...story.numbers import significant

# Colours the run's own path (PATH_COLOUR), −∇L and the star do not use (Okabe-Ito; not its
# black, which the dark theme's plots would redraw as their ink).
COLOURS = ("#CC79A7", "#56B4E9", "#E69F00", "#F0E442", "#999999")
SYMBOLS = {"learning_rate": "η", "momentum": "μ", "rho": "ρ", "beta_1": "β₁", "beta_2": "β₂",
           "epsilon": "ε", "damping": "λ"}


def settings_label(optimizer):
    """'SGD (η = 2×10⁻², μ = 0.9)': the optimizer and the settings that tell its runs apart
    (the learning rate, and each other setting where it is not the default), its numbers
    written as the dock writes them (story.numbers.significant), never 1e-05."""
    config = optimizer.get_config()
    defaults = hyper_parameters(optimizer_kind(optimizer))
    said = []
    for key, default in defaults.items():
        value = config.get(key, default)
        if key != "learning_rate" and value == default:
            continue
        if isinstance(value, bool):
            said.append(key.replace("_", " ") if value else f"no {key.replace('_', ' ')}")
        else:
            said.append(f"{SYMBOLS.get(key, key)} = {significant(value)}")
    return f"{optimizer.name} ({', '.join(said)})"


class KeptPaths:
    """The earlier runs' paths: (label, {port: value} per step) each, drawn on `plot` over
    the coordinates x, y."""

    def __init__(self, plot):
        self.plot = plot
        self.paths = []          # [(label, [(step, values), ...])]
        self.curves = []
        self.live = None         # (trainer, label, its path when last seen)
        self.over = None         # the coordinates the paths are kept for

    def follow(self, trainer, coordinates):
        """Keep the path last seen of a trainer that went or was rewound (its path now ends
        before the one seen); then remember `trainer`'s path. Other coordinates than the
        paths were kept for (another document or structure) drop them."""
        if coordinates != self.over:
            self.paths, self.live, self.over = [], None, coordinates
        path = list(trainer.path) if trainer is not None else []
        if self.live is not None:
            was, label, seen = self.live
            if was is not trainer or not path or path[-1][0] < seen[-1][0]:
                self._keep(label, seen)
        self.live = (trainer, settings_label(trainer.optimizer), path) if path else None
        if self.live is not None:    # a kept path Redo brought back is the run's own again
            self.paths = [(label, old) for label, old in self.paths
                          if not (label == self.live[1] and _same(path, old))]

    def _keep(self, label, path):
        if len(path) < 2:            # a run rewound to its start: no path to compare
            return
        if not any(label == kept and _same(path, old) for kept, old in self.paths):
            self.paths.append((label, path))

    def clear(self):
        self.paths, self.live = [], None
        self.draw(None, None)

    def draw(self, x, y):
        """Each kept path over x and y (none where x or y is None)."""
        for curve in self.curves:
            self.plot.removeItem(curve)
        self.curves = []
        if x is None or y is None:
            return
        for k, points in enumerate(self.points(x, y)):
            colour = COLOURS[k % len(COLOURS)]
            curve = pg.PlotDataItem(*(zip(*points) if points else ([], [])),
                                    pen=pg.mkPen(colour, width=2), symbol="o", symbolSize=4,
                                    symbolBrush=colour, symbolPen=None)
            curve.setZValue(0.5)           # over the surface, under the run's own path
            self.plot.addItem(curve)
            self.curves.append(curve)

    def points(self, x, y):
        """Each kept path's [(x, y), ...] over the coordinates x and y."""
        return [[(float(np.asarray(v[x.port])[x.index]), float(np.asarray(v[y.port])[y.index]))
                 for _, v in path if x.port in v and y.port in v] for _, path in self.paths]

    def key(self):
        """The key's lines for the kept paths (rich text)."""
        return "".join(f"<span style='color:{COLOURS[k % len(COLOURS)]}'>━●━</span> "
                       f"earlier run: {label}<br>" for k, (label, _) in enumerate(self.paths))


def _same(a, b):
    """Whether two paths are one: the same steps through the same values."""
    return len(a) == len(b) and all(s == t and v.keys() == w.keys()
                                    and all(np.array_equal(v[p], w[p]) for p in v)
                                    for (s, v), (t, w) in zip(a, b))
