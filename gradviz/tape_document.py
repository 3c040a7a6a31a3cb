"""`gradviz.capture(tape, target, sources)`: a script's or a notebook's own tape as a document.

What `gradviz trace` does for a whole script, from inside the code: the ops `tape`
recorded on the way from `sources` to `target` become a graph document (graph.capture),
named with the caller's own variable names. The document shows itself inline in Jupyter
(`_repr_svg_`, `_repr_png_`: the renderer of `gradviz export`), explains its backward
pass, saves, exports a story step, and opens in the desktop app.

Qt is imported only when a picture is drawn or a window opened.
"""
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from . import story as _story_module
from .engine.errors import counted
from .graph import capture as _capture
from .graph.errors import DocumentError, errors
from .graph.fileformat import save as _save
from .story.text import explain as _explain

NOTEBOOK_SCALE = 2.0   # PNG pixels per CSS pixel inline: crisp on high-DPI screens
_windows = []          # windows opened in this process's app (Qt must not lose them)


def capture(tape, target, sources, output_gradients=None, title="Captured tape"):
    """The document of `tape.gradient(target, sources, output_gradients)`.

    Call it after the `with tape:` block (before or after `tape.gradient`: the tape keeps
    its record). Tensors and keras layers are named by the caller's variable names."""
    caller = sys._getframe(1)
    names, layers = _capture.script_names({**caller.f_globals, **caller.f_locals})
    doc = _capture.from_tape(tape, target, sources, output_gradients, title=title,
                             recording=_capture.Recording(names=names, layers=layers))
    return TapeDocument(doc)


class TapeDocument:
    """A captured tape as a gradviz document; `.document` is the graph Document itself."""

    def __init__(self, document):
        self.document = document
        self._story = None

    @property
    def title(self):
        return self.document.title

    @property
    def story(self):
        """The backward pass, step by step (computed once)."""
        if self._story is None:
            self._story = _story_module.build(self.document)
        return self._story

    def __repr__(self):
        doc = self.document
        return (f"<gradviz document {doc.title!r}: {counted(len(doc.nodes), 'node')}, "
                f"{counted(len(self.story.steps), 'story step')}>")

    def explain(self):
        """The backward pass as text, as `gradviz explain` prints it."""
        return _explain(self.story)

    def save(self, path):
        """Write the document (JSON) to `path`; open it with `gradviz PATH`."""
        _save(self.document, os.fspath(path))
        return Path(path)

    def export(self, path, step=None, theme="light", scale=2.0, dpi=None):
        """A PNG, SVG or PDF of the graph, with story step `step` drawn on top, counted
        from 1 as the player and `gradviz export PATH --step K` count (-1 is the last);
        returns the path written."""
        from .render import export   # Qt loads only when a picture is drawn
        story = self._checked_story()
        index = None if step is None else story.index_of_step(step)
        return export(self.document, path, step=index, theme=theme, scale=scale, dpi=dpi,
                      evaluation=story.evaluation, story=story)

    def _checked_story(self):
        story = self.story
        problems = errors(story.problems)
        if problems:
            raise DocumentError(str(problems[0]))
        return story

    # -- Jupyter ----------------------------------------------------------------------
    def _repr_svg_(self):
        with tempfile.TemporaryDirectory(prefix="gradviz-") as folder:
            path = self.export(Path(folder) / "graph.svg")
            return path.read_text(encoding="utf-8")

    def _repr_png_(self):
        # Qt loads only when a picture is drawn
        from .render import Renderer
        from .render.export import png_bytes
        story = self._checked_story()
        renderer = Renderer(self.document, evaluation=story.evaluation, story=story)
        bounds = renderer.bounds(None)
        size = {"width": round(bounds.width()), "height": round(bounds.height())}
        return png_bytes(renderer, None, NOTEBOOK_SCALE), size

    # -- the desktop app --------------------------------------------------------------
    def show(self):
        """Open the document in the desktop app: a new window of this process's app when
        one runs here (IPython's `%gui qt`, a script run by the app), else a new app
        process. Returns the window, or the process."""
        folder = tempfile.mkdtemp(prefix="gradviz-show-")
        path = self.save(Path(folder) / f"{_file_stem(self.title)}.gradviz.json")
        app = _running_app()
        if app is not None:
            from .app import create_window   # the app and its widgets: only for a window
            from .app.collector import collect_on_gui_thread
            collect_on_gui_thread(app)         # its workers must not finalize the window
            window = create_window(str(path), offer_recovery=False)
            window.show()
            window.raise_()
            _windows.append(window)
            return window
        if sys.platform.startswith("linux") and not any(
                os.environ.get(k) for k in ("DISPLAY", "WAYLAND_DISPLAY")):
            raise RuntimeError("there is no display to open the app on (DISPLAY is not set); "
                               f"the document is saved as {path}, and .export(path) draws it")
        return subprocess.Popen([sys.executable, "-m", "gradviz", str(path)],
                                stdin=subprocess.DEVNULL, start_new_session=True)


def _running_app():
    """This process's QApplication on a real screen, if it has one (never created here)."""
    if "PySide6.QtWidgets" not in sys.modules:
        return None
    from PySide6.QtWidgets import QApplication   # already imported (checked above)
    app = QApplication.instance()
    if not isinstance(app, QApplication) or app.platformName() in ("offscreen", "minimal"):
        return None
    return app


def _file_stem(title):
    stem = "".join(c if c.isalnum() or c in "-_" else "_" for c in title).strip("_")
    return stem[:60] or "captured"
