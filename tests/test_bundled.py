"""The course as bundled.lesson_entries reads it from a samples folder: in the README's
order, each lesson's title and paragraph as its file says them now (the files' title and
lesson are kept between calls, for as long as the file is unchanged)."""
import json
import os

from gradviz.bundled import lesson_entries


def _write(path, title, lesson):
    path.write_text(json.dumps({"title": title, "lesson": lesson}), encoding="utf-8")


def test_lesson_entries_follow_the_readme_and_the_files_as_they_are_now(tmp_path):
    (tmp_path / "README.md").write_text("| `b.json` | second |\n| `a.json` | first |\n", encoding="utf-8")
    _write(tmp_path / "a.json", "Alpha", "Alpha teaches a.")
    _write(tmp_path / "b.json", "Beta", "Beta teaches b.")
    _write(tmp_path / "c.json", "", "")
    assert [(e.number, e.title, e.lesson, e.path.name) for e in lesson_entries(tmp_path)] == [
        (1, "Beta", "Beta teaches b.", "b.json"), (2, "Alpha", "Alpha teaches a.", "a.json"),
        (3, "c", "", "c.json")]     # not in the README: last; no title: its file's name
    stat = (tmp_path / "a.json").stat()
    _write(tmp_path / "a.json", "Gamma", "Gamma teaches a.")    # the same size: its time tells
    os.utime(tmp_path / "a.json", ns=(stat.st_atime_ns, stat.st_mtime_ns + 1))
    _write(tmp_path / "b.json", "Beta, longer", "Beta teaches b.")
    (tmp_path / "c.json").write_text("{not json", encoding="utf-8")
    assert [(e.number, e.title, e.lesson) for e in lesson_entries(tmp_path)] == [
        (1, "Beta, longer", "Beta teaches b."), (2, "Gamma", "Gamma teaches a.")]
