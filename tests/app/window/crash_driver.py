"""A gradviz instance that tests drive line by line on stdin, to be killed with -9.

    python crash_driver.py CONFIG_DIR [FILE]      (GRADVIZ_RECOVERY_DIR set by the test)

Exists only for tests (test_crash_processes.py). Every question box is answered with
$DRIVER_ANSWER (yes / no) and printed as `asked: <text>`; warnings as `warned: <text>`.
Commands, one a line: `interval MS` (the autosave interval), `title TEXT` (an edit),
`close` (a normal close, discarding changes), `titles` (print every window's title).
"""
import os
import sys
import threading

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QCoreApplication, QObject, QSettings, Signal  # noqa: E402
from PySide6.QtWidgets import QApplication, QMessageBox  # noqa: E402


def say(text):
    print(" ".join(str(text).split()), flush=True)


class Commands(QObject):
    line = Signal(str)


def main():
    config, path = sys.argv[1], (sys.argv[2] if len(sys.argv) > 2 else None)
    QCoreApplication.setOrganizationName("gradviz-crash-tests")
    QCoreApplication.setApplicationName("gradviz")
    QSettings.setDefaultFormat(QSettings.Format.IniFormat)
    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, config)
    app = QApplication([sys.argv[0]])
    answer = (QMessageBox.StandardButton.Yes if os.environ.get("DRIVER_ANSWER") == "yes"
              else QMessageBox.StandardButton.No)
    QMessageBox.question = staticmethod(lambda parent, title, text, *a, **k: (
        say(f"asked: {text}"), answer)[1])
    QMessageBox.warning = staticmethod(lambda parent, title, text, *a, **k: (
        say(f"warned: {text}"), QMessageBox.StandardButton.Ok)[1])
    from gradviz.app import create_window
    from gradviz.app.window.main_window import MainWindow
    window = create_window(path)
    window.show()

    def windows():
        return [w for w in QApplication.topLevelWidgets() if isinstance(w, MainWindow)]

    def run(line):
        command, _, arg = line.strip().partition(" ")
        if command == "interval":
            window.autosaver.timer.setInterval(int(arg))
        elif command == "title":
            window.controller.set_meta(title=arg)
        elif command == "titles":
            for w in windows():
                say(f"title: {w.controller.doc.title}")
        elif command == "close":
            for w in windows():
                w.controller.undo_stack.setClean()
                w.close()
            app.quit()
        say(f"done {line.strip()}")

    commands = Commands()
    commands.line.connect(run)
    threading.Thread(target=lambda: [commands.line.emit(line) for line in sys.stdin],
                     daemon=True).start()
    say("ready")
    return app.exec()


if __name__ == "__main__":
    sys.exit(main())
