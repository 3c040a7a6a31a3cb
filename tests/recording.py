"""A painter that notes each text it draws (for the tests of legible type)."""
from PySide6.QtGui import QPainter


class Recording(QPainter):
    """A QPainter that notes each text it draws in `texts`: (how tall it comes out on the
    device in pixels, its rectangle there (the first argument mapped), the text), and in
    `colours` the pen's colour ('#rrggbb') each was drawn in."""

    def __init__(self, device):
        super().__init__(device)
        self.texts = []
        self.colours = []

    def drawText(self, *args):
        font = self.font()
        points = font.pointSizeF() if font.pointSizeF() > 0 else font.pixelSize() * 72 / 96
        where = args[0] if len(args) > 1 else None
        self.texts.append((points * 96 / 72 * self.worldTransform().m11(),
                           None if where is None or not hasattr(where, "width") else self.worldTransform().mapRect(where),
                           str(args[-1])))
        self.colours.append(self.pen().color().name())
        return super().drawText(*args)
