"""The `gradviz` command.

    gradviz [FILE]                      open the desktop app
    gradviz export FILE -o OUT          PNG / SVG / PDF of the graph or of one story step;
                                        GIF / APNG of the whole backward pass, animated
    gradviz explain FILE                the backprop story as text
    gradviz run FILE                    values and gradients as JSON
    gradviz trace SCRIPT -o FILE        run a Python script and save its tape as a document
    gradviz train FILE                  run an optimizer on the document's Variables
    gradviz samples                     the bundled sample documents (the lessons)

FILE is a document's path, or the name of a bundled sample (`004_matmul_sum`), so the
samples work the same from a checkout and from an installed wheel.
Bad input (a missing file, malformed JSON, an invalid graph, a step out of range) exits
with status 2 and one line on stderr, `gradviz: error: <what and where>`, never a
traceback. A document that loads but cannot be computed (a shape mismatch on a node) is
such bad input here, where the command's output would be wrong or missing; the app opens
it and shows the node in error, where it can be mended, and the error line says so. A warning (a NaN or infinity, named where it first appears) does not stop a
command: it is printed as `gradviz: warning: <where>: <what>` and the command goes on.
Reading a document never executes anything from it; only `trace` runs the script it is
given.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import sys
import time
from importlib.metadata import PackageNotFoundError, version

from . import bundled
from .engine.errors import counted

COMMANDS = ("export", "explain", "run", "trace", "train", "samples")

DESCRIPTION = """\
gradviz makes backpropagation visible.

commands:
  gradviz [FILE]                   open the desktop app
  gradviz export FILE -o OUT       PNG, SVG or PDF of the graph or of a story step;
                                   GIF or APNG: the backward pass animated
  gradviz explain FILE             the backprop story as text
  gradviz run FILE                 values and gradients as JSON
  gradviz trace SCRIPT -o FILE     record a script's tape as a graph document
  gradviz train FILE               train the document's Variables (SGD, RMSprop, Adam, Newton)
  gradviz samples                  list the bundled samples; FILE may name one (004_matmul_sum)

A command exits with status 2 and one line saying why when FILE cannot be read or its
graph cannot be computed. A graph that cannot be computed (a shape mismatch, say) still
opens in the app (gradviz FILE), which shows the node in error, to be mended there.
"""

TRACE_HELP = """\
Run SCRIPT, a Python program using `import gradviz as tf`, with your permissions, and save
the tape of one of its tape.gradient(...) calls as a graph document. Run only scripts you
trust. A script that calls tape.gradient many times (a training loop) keeps only the call
to save: the output says which call the document shows.

exit status:
  0  the document was written
  1  the document was written, but the script failed after the gradient call it shows
     (the script's error is printed as a warning)
  2  nothing was written; one line on stderr says why: the script failed before that
     call or made none, its tape cannot be saved as a document, it ended its process
     itself (os._exit, a crash, a signal), or it passed --timeout or --max-memory

The script runs in a process of its own: whatever it does, gradviz reports it. Its
non-daemon threads are waited for, as Python does at exit (--timeout bounds the wait);
a process it forks never writes the document, and forks still running when it ends are
stopped.
"""


class UsageError(Exception):
    """Bad input from the user: reported in one line, exit status 2."""


# --option -> (low, high, whether low itself is refused): the one place a range is written,
# for the checks and for --help
RANGES = {"scale": (0, 16, True), "dpi": (10, 1200, False), "fps": (1, 100, False),
          "motion": (0, 10, True), "hold": (0, 60, False), "steps": (1, 1_000_000, False)}


def _range(option):
    """'greater than 0 and at most 16', 'from 10 to 1200': the range as it is, ends
    included or not."""
    low, high, above = RANGES[option]
    if above:
        return f"greater than {_number(low)} and at most {_number(high)}"
    return f"from {_number(low)} to {_number(high)}"


def _within(option, value, what, unit=""):
    """Refuse --option's `value` outside its range, saying the range. NaN lies outside."""
    low, high, above = RANGES[option]
    if not ((low < value if above else low <= value) and value <= high):
        raise UsageError(f"--{option} {_number(value)}: choose {what} {_range(option)}{unit}")


def _number(x):
    """1000000 and 16 as written, not 1e+06 or 16.0; other numbers (nan, 0.5) as floats."""
    return str(int(x)) if float(x).is_integer() else f"{x:g}"


class _HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Writes {themes} as render.themes' names when help is printed: the list comes from
    the themes themselves, and a command that paints nothing does not load Qt to parse."""

    def _get_help_string(self, action):
        text = super()._get_help_string(action)
        if "{themes}" in text:
            from .render import THEMES   # Qt loads here only to print the help
            *first, last = THEMES
            text = text.replace("{themes}", f"{', '.join(first)} or {last}")
        return text


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        raise UsageError(message)


def _version() -> str:
    try:
        return version("gradviz")
    except PackageNotFoundError:
        return "0.1.0"


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="gradviz", description=DESCRIPTION,
                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"gradviz {_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    export = sub.add_parser("export", help="export the graph or a story step to PNG, SVG or PDF; "
                                           "the backward pass to an animated GIF or APNG",
                            formatter_class=_HelpFormatter)
    export.add_argument("file", metavar="FILE", help="a .gradviz.json document")
    export.add_argument("-o", "--output", required=True, metavar="OUT",
                        help="output file; the suffix picks the format: .png, .svg, .pdf (one "
                             "picture) or .gif, .apng (every step, animated)")
    export.add_argument("--step", type=int, metavar="K",
                        help="draw step K of the backprop story on top; K counts from 1 as the "
                             "player's K/n does (negative counts from the end: -1 is the last)")
    export.add_argument("--theme", default="light", help="{themes} (default light)")
    export.add_argument("--scale", type=float, default=2.0,
                        help=f"PNG, GIF and APNG pixels per point, {_range('scale')} (default 2)")
    export.add_argument("--dpi", type=float, help=f"PNG resolution, {_range('dpi')}; overrides "
                                                  f"--scale (96 dpi = scale 1)")
    export.add_argument("--fps", type=float, metavar="N",
                        help=f"animation: frames per second of the motion, {_range('fps')} "
                             f"(default 25)")
    export.add_argument("--motion", type=float, metavar="SECONDS",
                        help=f"animation: how long a cotangent travels along its edge, "
                             f"{_range('motion')} (default 0.8)")
    export.add_argument("--hold", type=float, metavar="SECONDS",
                        help=f"animation: how long each finished step stays still, "
                             f"{_range('hold')} (default 1.6)")

    explain = sub.add_parser("explain", help="print the backprop story as text")
    explain.add_argument("file", metavar="FILE")

    run = sub.add_parser("run", help="print values and gradients as JSON")
    run.add_argument("file", metavar="FILE")

    trace = sub.add_parser("trace", help="run SCRIPT and save its tape as a graph document",
                           description=TRACE_HELP,
                           formatter_class=argparse.RawDescriptionHelpFormatter)
    trace.add_argument("script", metavar="SCRIPT")
    trace.add_argument("-o", "--output", required=True, metavar="FILE",
                       help="the document to write (never the script itself)")
    trace.add_argument("--call", type=int, default=-1, metavar="K",
                       help="which tape.gradient call to save: K counts from 1 (the first); "
                            "negative counts from the end (default -1, the last). Only that "
                            "call's tape is kept while the script runs")
    trace.add_argument("--timeout", type=float, metavar="SECONDS",
                       help="stop the script after this many seconds (default: no limit)")
    trace.add_argument("--max-memory", type=_size, metavar="SIZE",
                       help="the most memory the script may use, such as 4G or 512M; beyond "
                            "it the script gets a MemoryError (default: no limit)")
    _add_train_parser(sub)

    sub.add_parser("samples", help="list the bundled sample documents (the lessons)")
    return parser


def _document_path(path):
    """The file FILE names: the path itself, or else the bundled sample of that name."""
    if os.path.exists(path):
        if os.path.isdir(path):
            raise UsageError(f"{path}: is a directory, not a document")
        return path
    found = bundled.sample(path)
    if found is None:
        raise UsageError(f"{path}: no such file, nor a bundled sample (`gradviz samples` "
                         f"lists them)")
    return str(found)


# --option -> (the optimizer's hyper-parameter, its help); defaults are Keras' own.
TRAIN_OPTIONS = {
    "lr": ("learning_rate", "learning rate (default: sgd 0.01, rmsprop and adam 0.001, newton 1)"),
    "momentum": ("momentum", "sgd, rmsprop: momentum (default 0)"),
    "nesterov": ("nesterov", "sgd: Nesterov momentum"),
    "rho": ("rho", "rmsprop: decay of the squared-gradient average (default 0.9)"),
    "centered": ("centered", "rmsprop: divide by the gradient's variance estimate"),
    "beta1": ("beta_1", "adam: decay of the first moment (default 0.9)"),
    "beta2": ("beta_2", "adam: decay of the second moment (default 0.999)"),
    "amsgrad": ("amsgrad", "adam: the AMSGrad variant"),
    "epsilon": ("epsilon", "rmsprop, adam: ε (default 1e-07)"),
    "damping": ("damping", "newton: λ of (H + λI)⁻¹ g (default 0.001)"),
}
FLAGS = ("nesterov", "centered", "amsgrad")


def _add_train_parser(sub):
    train = sub.add_parser(
        "train", help="run an optimizer on the document's Variables",
        description="Run an optimizer on the document's Variables. A document with a training "
                    "preset (the lessons have one) gives the defaults, as the app's Train dock "
                    "takes them: its optimizer, that optimizer's hyper-parameters and its steps; "
                    "the options given override them (another --optimizer starts from Keras' "
                    "defaults). Without a preset: sgd, Keras' defaults, 100 steps.")
    train.add_argument("file", metavar="FILE")
    train.add_argument("--optimizer", metavar="NAME",
                       help="sgd, rmsprop, adam or newton (default: the document's training "
                            "preset, else sgd)")
    train.add_argument("--steps", type=int, help=f"number of updates, {_range('steps')} "
                                                 f"(default: the document's training preset, "
                                                 f"else 100)")
    train.add_argument("-o", "--output", metavar="OUT", help="write the trained document here")
    train.add_argument("--log", metavar="CSV", help="write step,loss here (step 0: before training)")
    train.add_argument("--param", action="append", metavar="NAME",
                       help="a Variable to train, by its label as the app shows it (W1, "
                            "layer1.kernel) or its id (repeatable; default: the sources that "
                            "are Variables)")
    for option, (_, text) in TRAIN_OPTIONS.items():
        if option in FLAGS:
            train.add_argument(f"--{option}", action="store_true", default=None, help=text)
        else:
            train.add_argument(f"--{option}", type=float, metavar="X", help=text)


def _train(args):
    # loaded per command: `gradviz --help` stays quick
    from .graph.training import OPTIMIZERS, hyper_parameters, make_optimizer

    path = _document_path(args.file)
    preset = _training_preset(path)
    preset_name = preset.pop("optimizer", None)
    preset_steps = preset.pop("steps", None)
    name = (args.optimizer or preset_name or "sgd").lower()
    if name not in OPTIMIZERS:
        raise UsageError(f"--optimizer {args.optimizer}: choose sgd, rmsprop, adam or newton")
    accepted = hyper_parameters(name)
    takes = [f"--{o}" for o, (h, _) in TRAIN_OPTIONS.items() if h in accepted]
    hyper = dict(preset) if name == preset_name else {}   # the options given override
    origin = {key: PRESET for key in hyper}
    origin["steps"] = GIVEN if args.steps is not None else PRESET if preset_steps else STEPS_DEFAULT
    if args.steps is None:
        args.steps = preset_steps or 100
    for option, (key, _) in TRAIN_OPTIONS.items():
        value = getattr(args, option)
        if value is None:
            continue
        if key not in accepted:
            raise UsageError(f"--{option} is not an option of {name} (it takes {', '.join(takes)})")
        hyper[key], origin[key] = value, GIVEN
    _within("steps", args.steps, "a number of steps")
    try:
        optimizer = make_optimizer(name, **hyper)
    except ValueError as error:
        message = str(error)
        for option, (key, _) in TRAIN_OPTIONS.items():
            message = message.replace(f"`{key}`", f"--{option}")
        raise UsageError(message) from None
    # loaded per command: `gradviz --help` stays quick
    from .graph.cli_commands import train_command

    bar = _ProgressBar(sys.stderr) if sys.stderr.isatty() else None
    code, text = train_command(path, optimizer, args.steps, args.output, args.log,
                               args.param, progress=bar, warn=_warn,
                               settings=_settings_text(optimizer, accepted, args.steps, origin))
    if bar:
        bar.close()
    if code == 2:
        raise UsageError(text)
    return _emit(code, text)


GIVEN, PRESET = "given", "the document's training preset"
STEPS_DEFAULT = "the command's default"


def _settings_text(optimizer, accepted, steps, origin):
    """Every setting the run used (`accepted`: the optimizer's hyper-parameters) as the
    options that set it, grouped by where each came from: '--lr 0.035 (given); --momentum
    0.9, --nesterov off, --steps 100 (the document's training preset)'. A lesson's preset
    is never kept silently."""
    # loaded per command: `gradviz --help` stays quick
    from .graph.training import default_origin, optimizer_kind
    config = optimizer.get_config()
    default = default_origin(optimizer_kind(optimizer))
    groups = {GIVEN: [], PRESET: [], default: [], STEPS_DEFAULT: []}
    for option, (key, _) in TRAIN_OPTIONS.items():
        if key in accepted:
            value = config[key]
            text = f"--{option} {'on' if value else 'off'}" if option in FLAGS \
                else f"--{option} {value:g}"
            groups[origin.get(key, default)].append(text)
    groups[origin["steps"]].append(f"--steps {steps}")
    return "; ".join(f"{', '.join(texts)} ({where})" for where, texts in groups.items() if texts)


def _training_preset(path):
    """The document's training preset ({} without one, or when the file cannot be read:
    the command then says why, as it does without a preset)."""
    # loaded per command: `gradviz --help` stays quick
    from .graph.errors import DocumentError
    from .graph.fileformat import load
    try:
        return dict(load(path).training)
    except (DocumentError, OSError, ValueError):
        return {}


class _ProgressBar:
    """`[#####.....] 120/200  loss 0.0123` redrawn in place on a terminal, at most 20 times
    a second."""

    def __init__(self, stream, width=30):
        self.stream, self.width, self.last, self.drawn = stream, width, 0.0, False

    def __call__(self, done, total, loss):
        now = time.monotonic()
        if done < total and now - self.last < 0.05:
            return
        self.last = now
        filled = self.width * done // total
        self.stream.write(f"\r[{'#' * filled}{'.' * (self.width - filled)}] {done}/{total}  "
                          f"loss {loss:.6g}   ")
        self.stream.flush()
        self.drawn = True

    def close(self):
        if self.drawn:
            self.stream.write("\n")
            self.stream.flush()


def _load(path):
    # loaded per command: `gradviz --help` stays quick
    from .graph.errors import DocumentError
    from .graph.fileformat import load

    try:
        return load(_document_path(path))
    except DocumentError as error:
        raise UsageError(f"{path}: {error}") from None


def _story(doc, path):
    """The backprop story; its first error stops the command, its warnings are printed."""
    # loaded per command: `gradviz --help` stays quick
    from . import story as story_module
    from .graph.errors import DocumentError, errors, warnings

    try:
        story = story_module.build(doc)
    except DocumentError as error:
        raise UsageError(f"{path}: {error}") from None
    problems = getattr(story, "problems", [])
    if errors(problems):
        raise UsageError(f"{path}: {errors(problems)[0]}")
    for problem in warnings(problems):
        _warn(f"{path}: {problem}")
    return story


def _warn(line):
    print(f"gradviz: warning: {' '.join(line.split())}", file=sys.stderr)


def _export(args):
    # Qt loads only for the commands that paint
    from .render import get_theme

    ext = os.path.splitext(args.output)[1].lower()
    if ext not in (".png", ".svg", ".pdf", ".gif", ".apng"):
        raise UsageError(f"{args.output}: the output must end in .png, .svg or .pdf (a picture), "
                         ".gif or .apng (an animation)")
    animated = ext in (".gif", ".apng")
    for option in ("fps", "motion", "hold"):
        if getattr(args, option) is not None and not animated:
            raise UsageError(f"--{option} is for animations: write to a .gif or .apng file")
    if animated and args.step is not None:
        raise UsageError("--step draws one step; an animation shows them all: leave --step out")
    try:
        get_theme(args.theme)
    except ValueError as error:
        raise UsageError(str(error)) from None
    _within("scale", args.scale, "a scale")
    if args.dpi is not None:
        _within("dpi", args.dpi, "a resolution", " dpi")
    doc = _load(args.file)
    story = _story(doc, args.file)
    if animated:
        return _export_animation(args, doc, story)
    evaluation = getattr(story, "evaluation", None)
    index = None
    if args.step is not None:
        try:
            index = story.index_of_step(args.step)
        except IndexError as error:
            raise UsageError(f"--{error}".replace("the story has", f"{args.file} has")) from None
    # Qt loads only for the commands that paint
    from .render import Renderer, animation, ensure_app, export

    renderer = None
    if index is not None:   # a step is laid out for a slide, folded into rows as the GIF folds it
        ensure_app()
        renderer = animation.slide_renderer(Renderer(doc, evaluation=evaluation, story=story, theme=args.theme))
    try:
        export(doc, args.output, step=index, theme=args.theme, scale=args.scale, dpi=args.dpi,
               evaluation=evaluation, story=story, renderer=renderer,
               warn=lambda message: print(f"gradviz: note: {message}", file=sys.stderr))
    except OSError as error:
        raise UsageError(f"{args.output}: cannot write ({error.strerror or error})") from None
    print(f"wrote {args.output}")
    return 0


def _export_animation(args, doc, story):
    """Every step of the backward pass, eased motion then a still hold, as GIF or APNG."""
    if not getattr(story, "steps", None):
        raise UsageError(f"{args.file} has no backward pass to animate: it needs a target and a source")
    # Qt loads only for the commands that paint
    from .render import animation, animation_files

    fps = animation.FPS if args.fps is None else args.fps
    motion = animation.MOTION_SECONDS if args.motion is None else args.motion
    hold = animation.HOLD_SECONDS if args.hold is None else args.hold
    _within("fps", fps, "a rate", " frames per second")
    _within("motion", motion, "a time", " seconds")
    _within("hold", hold, "a time", " seconds")
    scale = args.dpi / 96 if args.dpi is not None else args.scale
    frames = animation.frames(doc, evaluation=getattr(story, "evaluation", None), story=story,
                              theme=args.theme, scale=scale, frames_per_step=max(1, animation.frames_for(motion, fps)),
                              hold=animation.frames_for(hold, fps), glide=animation.frames_for(animation.GLIDE_SECONDS, fps))
    try:
        count = animation_files.write_animation(frames, args.output, fps, theme=args.theme)
    except OSError as error:
        raise UsageError(f"{args.output}: cannot write ({error.strerror or error})") from None
    print(f"wrote {args.output} ({counted(count, 'frame')})")
    return 0


def _explain(args):
    # loaded per command: `gradviz --help` stays quick
    from .story.text import explain

    doc = _load(args.file)
    text = explain(_story(doc, args.file))
    encoding = getattr(sys.stdout, "encoding", None) or "utf-8"
    # A label the terminal cannot show (a lone surrogate, ∂ on an ASCII console) is escaped.
    sys.stdout.write(text.encode(encoding, "backslashreplace").decode(encoding))
    return 0


def _run(args):
    path = _document_path(args.file)
    # loaded per command: `gradviz --help` stays quick
    from .graph.cli_commands import run_command

    code, text = run_command(path, warn=_warn)
    if code == 2:
        raise UsageError(text)
    return _emit(code, text)


def _trace(args):
    if not os.path.exists(args.script):
        raise UsageError(f"{args.script}: no such file")
    if args.timeout is not None and not (0 < args.timeout < float("inf")):
        raise UsageError(f"--timeout {args.timeout:g}: give a number of seconds above 0")
    # loaded per command: `gradviz --help` stays quick
    from .graph.trace_process import supervise

    code, text = supervise(args.script, args.output, call=args.call, timeout=args.timeout,
                           max_memory=args.max_memory, warn=_warn)
    if code == 1:   # written; the warning said how the script failed afterwards
        _emit(0, text)
        return 1
    return _emit(code, text)


def _size(text):
    """'4G', '512M', '100K' or bytes -> bytes (argparse type of --max-memory)."""
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}
    t = text.strip().upper().removesuffix("B")
    scale = units.get(t[-1:], 1)
    try:
        value = float(t[:-1] if t[-1:] in units else t) * scale
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a size such as 4G or 512M") from None
    if not (1 << 26) <= value < float("inf"):
        raise argparse.ArgumentTypeError(f"{text}: give at least 64M (Python itself needs that)")
    return int(value)


def _emit(code, text):
    if code == 0:
        if text:
            sys.stdout.write(text if text.endswith("\n") else text + "\n")
    else:
        line = " ".join(str(text).split()) if text else "failed"
        print(line if line.startswith("gradviz:") else f"gradviz: error: {line}", file=sys.stderr)
    return code


def _samples(args):
    for path in bundled.sample_paths():
        try:
            title = json.loads(path.read_text(encoding="utf-8")).get("title", "")
        except (OSError, ValueError):
            title = ""
        print(f"{path.stem:<36} {title}")
    return 0


def _open_app(path=None):
    if path is not None:
        path = _document_path(path)
    # the app and Qt load only when a window opens
    try:
        from .app import main as app_main
    except ModuleNotFoundError as error:
        if error.name and error.name.startswith(("PySide6", "shiboken6", "pyqtgraph")):
            raise UsageError(f"the desktop app needs {error.name.split('.')[0]}, which is not installed "
                             "(bash .ci/install sets it up); the explain, run and trace "
                             "commands work without it") from None
        raise
    return app_main([path] if path else [])


def _dispatch(argv):
    if argv and argv[0] not in COMMANDS and not argv[0].startswith("-"):
        if len(argv) > 1:
            raise UsageError(f"unknown command '{argv[0]}' (choose from {', '.join(COMMANDS)})")
        return _open_app(argv[0])
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:       # --help, --version
        return int(exit_.code or 0)
    if args.command is None:
        return _open_app()
    if args.command == "trace":
        return _trace(args)  # the user's script: its warnings are its own
    if args.command == "samples":
        return _samples(args)
    # loaded per command: `gradviz --help` stays quick
    from .graph.build import quiet

    from .graph.errors import DocumentError

    with quiet():  # a NaN is reported in words, as a warning on its node, not by numpy
        try:
            return {"export": _export, "explain": _explain, "run": _run,
                    "train": _train}[args.command](args)
        except (UsageError, DocumentError) as error:
            # The message is written at once; what the app does with the file ends the line
            # when known (it reads every value of the file: seconds for millions of them).
            print(f"gradviz: error: {_one_line(str(error))}", end="", file=sys.stderr, flush=True)
            hint = ""
            try:
                hint = _one_line(_opens_in_app(args.file, str(error)), lead=" ")
            finally:   # the line ends, whatever stops the hint
                print(hint, file=sys.stderr)
            return 2


def _opens_in_app(path, message):
    """Where the command refused a document that loads but whose graph cannot be computed
    (its `message` names the node), what the app does with it: it opens it and shows the
    node in error (red), to be mended there. '' for a document the app would not open
    either (unreadable, invalid), and for other errors (an option out of range)."""
    # loaded per command: `gradviz --help` stays quick
    from .graph.errors import DocumentError
    from .graph.evaluate import evaluate
    from .graph.fileformat import load
    from .graph.names import node_name
    from .graph.validate import planned_problems

    def named_in(problems):
        names = [node_name(doc.nodes[p.node]) for p in problems if p.node in doc.nodes]
        return next((name for name in names if f"'{name}'" in message), None)

    try:
        doc = load(_document_path(path), strict=False)   # as the app opens it
        # a node refused before anything runs (its shapes) needs no evaluation
        named = named_in(planned_problems(doc)) or named_in(evaluate(doc).errors)
    except (DocumentError, OSError, UsageError, ValueError):
        return ""
    if named is None:
        return ""
    return f" (the app opens this file and shows node '{named}' in error, to be mended there: gradviz {shlex.quote(str(path))})"


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        return _dispatch(argv)
    except UsageError as error:
        message = str(error)
    except KeyboardInterrupt:
        print("gradviz: interrupted", file=sys.stderr)
        return 130
    except Exception as error:  # noqa: BLE001 - bad input must never show a traceback
        if os.environ.get("GRADVIZ_DEBUG"):
            raise
        message = _describe(error)
    print(f"gradviz: error: {_one_line(message)}", file=sys.stderr)
    return 2


def _one_line(text, lead=""):
    """`text` on one line, its runs of spaces and line breaks one space; `lead` before it
    when it is not empty."""
    words = " ".join(text.split())
    return lead + words if words else ""


def _describe(error):
    # loaded per command: `gradviz --help` stays quick
    try:
        from .graph.errors import DocumentError
    except ImportError:  # pragma: no cover
        DocumentError = ()
    if isinstance(error, DocumentError):
        return str(error)
    if isinstance(error, OSError):
        return f"{error.filename or ''}: {error.strerror or error}".lstrip(": ")
    return f"{type(error).__name__}: {error} (set GRADVIZ_DEBUG=1 for a traceback)"


if __name__ == "__main__":
    sys.exit(main())
