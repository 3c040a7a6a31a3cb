"""The Lesson panel: the document's lesson and the current step's caption, readable while
editing or stepping (not only in presentation mode, nor only in the inspector's small
edit box).

Rich text that scrolls and follows the story: the title, the lesson's paragraphs, then
the step on screen (its number, title and caption). A lesson opened from the Lessons menu
brings the panel to the front of its tabs.
"""
import html

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QTextBrowser

from ...engine.errors import counted
from .timeline import caption_html

BODY_PT = 11


def lesson_html(doc, step=None, n_steps=0):
    """The panel's text: the title, the lesson's paragraphs (blank lines part them), the step."""
    title = html.escape(doc.title or "Untitled", quote=False)
    lesson = (getattr(doc, "lesson", "") or "").strip()
    paragraphs = [p for p in lesson.split("\n\n") if p.strip()]
    body = "".join(f"<p>{caption_html(' '.join(p.split()))}</p>" for p in paragraphs) or \
        "<p><i>This document has no lesson text (Inspector ▸ Document ▸ Lesson).</i></p>"
    out = f"<h3>{title}</h3>{body}"
    if step is not None:
        name = html.escape(step.title or step.kind.replace("_", " "), quote=False)
        out += (f"<hr><p><b>Step {step.index + 1}/{n_steps}  {name}</b></p>"
                f"<p>{caption_html(step.caption or '')}</p>")
    elif n_steps:
        out += (f"<hr><p><i>{counted(n_steps, 'step')} in its backward pass: press → or Space "
                f"on the canvas to step through {'it' if n_steps == 1 else 'them'}.</i></p>")
    return out


class LessonPanel(QTextBrowser):
    """The lesson's text and the step on screen; it scrolls and follows the player."""

    def __init__(self, controller, player, parent=None):
        super().__init__(parent)
        self.controller, self.player = controller, player
        self.setObjectName("lessonPanel")
        self.setOpenLinks(False)
        self.setFocusPolicy(Qt.FocusPolicy.ClickFocus)   # the arrow keys stay the canvas's
        font = self.font()
        font.setPointSizeF(max(font.pointSizeF(), BODY_PT))
        self.setFont(font)
        self.document().setDocumentMargin(10)
        controller.documentReplaced.connect(self.refresh)
        controller.changed.connect(self.refresh)
        player.stepChanged.connect(self.refresh)
        self.refresh()

    def refresh(self, *_):
        """Show the text for the document and step on screen: a new document starts at the
        top, a new step keeps where the reader scrolled to."""
        doc = self.controller.doc
        steps = self.player.shown_steps or []
        index = self.player.index
        step = steps[index] if 0 <= index < len(steps) else None
        html_text = lesson_html(doc, step, len(steps))
        if html_text == getattr(self, "_shown", None):
            return
        scrolled = self.verticalScrollBar().value() if doc is getattr(self, "_doc", None) else 0
        self._shown, self._doc = html_text, doc
        self.setHtml(html_text)
        self.verticalScrollBar().setValue(scrolled)
