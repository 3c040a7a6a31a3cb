"""Fusion for tf.function's programs: a run of elementwise steps of one shape and dtype
becomes one numba kernel, a single loop that keeps every intermediate in a register
instead of one numpy call and one array per step.

A group is formed from consecutive elementwise steps (steps in between that use none of
the group's values run before it); the kernel computes what the steps after it need.
Each kernel's source is written to a file in the kernel cache (GRADVIZ_KERNEL_CACHE, or
~/.cache/gradviz/fused) named by its hash, and compiled by numba with cache=True, so a
later process loads it from disk instead of compiling it again. The file is rewritten
if its text is not exactly the source made here: no other code is ever imported from it.

The scalar formulas repeat the numpy forwards (the same order of operations, NaN kept
where numpy keeps it) in the dtype of the arrays: float32 stays float32. In float32,
exp, tanh, sin and cos are _vector_math.py's branch-free forms, which LLVM vectorises as
numpy vectorises its own loops; a kernel with sin or cos notes inputs beyond their
accurate range (or not finite) and then runs its loop again with libm's.

Each kernel writes its outputs into one flat array (its arena, a row of `size` values
per output) and reads earlier kernels' outputs from their arenas; every offset and the
trip count are literals in its source. LLVM then sees that no store can overlap a load
(constant offsets into one array each) and vectorises the loop; with a 2-D output
array or a runtime length it kept the loop scalar, and a kernel is compiled for one
trace, whose shapes are fixed, anyway.
"""
import hashlib
import os
import sys
import types
import threading

import numpy as np

from . import kernels

# op type -> the scalar formula of its forward ({0}, {1}: the inputs; `one`, `zero`:
# 1 and 0 in the kernel's dtype; `dt`: that dtype).
FORMULAS = {
    "AddV2": "{0} + {1}",
    "Sub": "{0} - {1}",
    "Mul": "{0} * {1}",
    "RealDiv": "{0} / {1}",
    "Neg": "-{0}",
    "Identity": "{0}",
    "Square": "{0} * {0}",
    "Abs": "abs({0})",
    "Reciprocal": "one / {0}",
    "Exp": "dt(math.exp({0}))",
    "Log": "dt(math.log({0}))",
    "Sin": "dt(math.sin({0}))",
    "Cos": "dt(math.cos({0}))",
    "Tanh": "dt(math.tanh({0}))",
    "Sqrt": "dt(math.sqrt({0}))",
    "Relu": "(zero if {0} <= zero else {0})",
    "ReluGrad": "{0} * (one if {1} > zero else zero)",
    "Sigmoid": "(one / (one + dt(math.exp(-{0}))) if {0} >= zero "
               "else dt(math.exp({0})) / (one + dt(math.exp({0}))))",
    "SigmoidGrad": "({1} * {0}) * (one - {0})",
    "TanhGrad": "{1} * (one - {0} * {0})",
    "Elu": "(dt(math.exp({0})) - one if {0} < zero else {0})",
    "EluGrad": "(({1} + one) * {0} if {1} < zero else {0})",
    "Maximum": "({0} if ({0} >= {1} or {0} != {0}) else {1})",
    "Minimum": "({0} if ({0} <= {1} or {0} != {0}) else {1})",
    "Masked": "({0} if {1} else zero)",
    "Pow": "{0} * {0}",  # only x ** 2 (see fusable)
}

# float32 formulas that vectorise (_vector_math.py, imported in the kernel as vm).
VECTOR_FORMULAS = {
    "Exp": "vm.exp32({0})",
    "Tanh": "vm.tanh32({0})",
    "Sin": "vm.sin32({0})",
    "Cos": "vm.cos32({0})",
}

# A group needs this many steps to be worth a kernel call; it stops at MAX_GROUP (the
# compile time of a loop grows faster than its body).
MIN_GROUP = 2
MAX_GROUP = 48

# numba calls libm once per element for these (no SIMD without SVML), where numpy runs
# SIMD loops: fused, they pay only on arrays this small, where numpy's per-call cost
# is the larger part (in float32, VECTOR_FORMULAS' ops fuse at any size).
TRANSCENDENTAL = frozenset(("Exp", "Log", "Sin", "Cos", "Tanh", "Sigmoid", "Elu"))
TRANSCENDENTAL_MAX_SIZE = 256

_lock = threading.Lock()
_loaded = {}  # source hash -> compiled kernel


def fusable(step, info):
    """Is this program step an elementwise op a kernel can run? `info(ref)` gives a
    value's (shape, dtype, constant value or None)."""
    if step[0] != "op" or not step[5]:
        return False
    opdef, refs, attrs, outs = step[1], step[2], step[3], step[4]
    formula = FORMULAS.get(opdef.type)
    if formula is None or attrs:
        return False
    shape, dtype, _ = info(("s", outs[0]))
    if dtype.char not in "fd":
        return False
    if (opdef.type in TRANSCENDENTAL and int(np.prod(shape)) > TRANSCENDENTAL_MAX_SIZE
            and not (dtype == np.float32 and opdef.type in VECTOR_FORMULAS)):
        return False
    for i, r in enumerate(refs):
        s, d, value = info(r)
        if opdef.type == "Masked" and i == 1:
            if d != np.bool_ or s != shape:
                return False
            continue
        if d != dtype or (s != shape and int(np.prod(s)) != 1) or len(s) > len(shape):
            return False
    if opdef.type == "Pow":
        value = info(refs[1])[2]
        return value is not None and value.size == 1 and float(value.reshape(-1)[0]) == 2.0
    return True


def groups(steps, info):
    """Lists of step indices, each a group to fuse (MIN_GROUP steps or more)."""
    found = []
    current, signature, made = [], None, set()

    def close():
        if len(current) >= MIN_GROUP:
            found.append(list(current))
        current.clear()
        made.clear()

    for k, step in enumerate(steps):
        if fusable(step, info):
            sig = info(("s", step[4][0]))[:2]
            if sig != signature or len(current) >= MAX_GROUP:
                close()
                signature = sig
            current.append(k)
            made.update(step[4])
            continue
        if current and (step[0] in ("store", "host") or any(
                r is not None and r[0] == "s" and r[1] in made for r in step_refs(step))):
            close()
            signature = None
    close()
    return found


def step_refs(step):
    """The refs a program step reads (trace_program.Program lists the kinds)."""
    kind = step[0]
    if kind in ("op", "host", "fused"):
        return step[2]
    if kind == "store":
        return (step[2],)
    return ()


def kernel_source(members, inputs, outputs, dtype, size):
    """The numba kernel for the group's steps over `size` elements. inputs: (ref, kind,
    value) in order, kind "array" (read at [j]), "scalar" (a 1-element array),
    "literal" (a constant written into the source, `value`) or "row" (`value`: (arena
    index, offset): a row of an earlier kernel's arena); outputs: slots written to rows
    of `out`. The kernel's arguments: the arrays, the scalars and each arena read, in
    order of first use, then `out`."""
    names = {}
    args, head, loads, arenas = [], [f"    dt = np.{np.dtype(dtype).name}", "    one = dt(1)",
                                      "    zero = dt(0)"], [], {}
    for k, (ref, kind, value) in enumerate(inputs):
        names[ref] = f"a{k}"
        if kind == "literal":
            head.append(f"    a{k} = dt({value!r})")
        elif kind == "scalar":
            args.append(f"i{k}")
            head.append(f"    a{k} = i{k}[0]")
        elif kind == "array":
            args.append(f"i{k}")
            loads.append(f"        a{k} = i{k}[j]")
        else:
            arena, offset = value
            if arena not in arenas:
                arenas[arena] = f"b{len(arenas)}"
                args.append(arenas[arena])
            loads.append(f"        a{k} = {arenas[arena]}[{offset} + j]")
    # Small arrays keep libm's calls: there numpy's per-call cost is what fusing saves,
    # and the vector forms' compile (seconds for a long chain) would not pay back.
    vector = np.dtype(dtype) == np.float32 and size > TRANSCENDENTAL_MAX_SIZE
    # Each output is stored as soon as it is computed: a value kept to the end of the
    # loop body holds a vector register throughout, and with a few of them LLVM no
    # longer interleaves two vector iterations (a W5 kernel: 36 us instead of 23).
    stored = {slot: f"        out[{q * size} + j] = t{slot}" for q, slot in enumerate(outputs)}
    body, checks = [], False
    for step in members:
        _, opdef, refs, _, outs, _ = step
        operands = [names[r] for r in refs]
        if vector and opdef.type in VECTOR_FORMULAS:
            value = VECTOR_FORMULAS[opdef.type].format(*operands)
            if opdef.type in ("Sin", "Cos"):  # beyond the range (or NaN, inf): numpy's
                body.append(f"        far |= not (abs({operands[0]}) <= limit)")
                checks = True
        else:
            value = FORMULAS[opdef.type].format(*operands)
        body.append(f"        t{outs[0]} = {value}")
        if outs[0] in stored:
            body.append(stored[outs[0]])
        names[("s", outs[0])] = f"t{outs[0]}"
    source = "import math\n\nimport numpy as np\nfrom numba import njit\n"
    if body != [line for line in body if "vm." not in line]:
        source += f"from gradviz.engine import _vector_math as vm  # {_vector_math_version()}\n"
    if checks:
        head += ["    far = False", "    limit = dt(vm.SIN_COS_LIMIT)"]
    source += ("\n\n@njit(cache=True, nogil=True, error_model='numpy')\n"
               f"def kernel({', '.join(args + ['out'])}):\n" + "\n".join(head)
               + f"\n    for j in range({size}):\n" + "\n".join(loads + body))
    return source + ("\n    return far\n" if checks else "\n")


_VECTOR_VERSION = None


def _vector_math_version():
    """A hash of _vector_math.py, in the source of each kernel that uses it: a change
    there makes new kernel files, so numba's cache never serves a kernel built on the old."""
    global _VECTOR_VERSION
    if _VECTOR_VERSION is None:
        with open(os.path.join(os.path.dirname(__file__), "_vector_math.py"), "rb") as f:
            _VECTOR_VERSION = hashlib.sha256(f.read()).hexdigest()[:16]
    return _VECTOR_VERSION


def _input(ref, info, dtype):
    """(ref, kind, value) of a kernel input: a finite constant of one element in the
    kernel's dtype is written into the source (its repr is exact)."""
    shape, d, value = info(ref)
    if int(np.prod(shape)) != 1:
        return ref, "array", None
    if value is not None and d == dtype and np.isfinite(value).all():
        return ref, "literal", float(value.reshape(-1)[0])
    return ref, "scalar", None


def cache_dir():
    return os.environ.get("GRADVIZ_KERNEL_CACHE") or os.path.join(
        os.path.expanduser("~"), ".cache", "gradviz", "fused")


def load(source):
    """The compiled kernel of `source`, from its file in the kernel cache (numba's own
    cache beside it holds the machine code); None when numba is off or missing."""
    if not kernels.ENABLED or not kernels._numba_installed():
        return None
    digest = hashlib.sha256(source.encode()).hexdigest()[:24]
    with _lock:
        fn = _loaded.get(digest)
        if fn is not None:
            return fn
        folder = cache_dir()
        os.makedirs(folder, exist_ok=True)
        path = os.path.join(folder, f"fused_{digest}.py")
        try:
            with open(path, encoding="utf-8") as f:
                same = f.read() == source
        except OSError:
            same = False
        if not same:
            tmp = f"{path}.{os.getpid()}.tmp"
            with open(tmp, "w", encoding="utf-8") as f:
                f.write(source)
            os.replace(tmp, path)
        # Compiled from `source` itself (the file is there for numba's cache, which
        # keys on it), so only the text made above ever runs.
        # A module numba can import by name when it loads the kernel from its cache.
        module = types.ModuleType(f"gradviz_fused_{digest}")
        module.__file__ = path
        sys.modules[module.__name__] = module
        exec(compile(source, path, "exec"), module.__dict__)
        fn = _loaded[digest] = module.kernel
        return fn


def fuse_steps(steps, info, outputs):
    """`steps` with each group replaced by one ("fused", kernel, argument refs, output
    slots, shape, dtype, arguments, arena, numpy) step at the place of its last member.
    An argument ref ("a", arena) is an earlier fused step's arena; `arguments`: (dtype,
    length, flatten) of each argument, flatten when the value must be reshaped to 1-D;
    `numpy`: the group in numpy (_numpy_group) for a kernel that can refuse inputs."""
    found = groups(steps, info)
    if not found:
        return steps
    kernels_at = {}
    members_of = set()
    rows = {}     # slot -> (arena, offset, size) of a value a fused step wrote
    lengths = {}  # arena -> its length
    for group in found:
        members = [steps[k] for k in group]
        made = {s for step in members for s in step[4]}
        shape, dtype, _ = info(("s", members[0][4][0]))
        size = int(np.prod(shape))
        inputs = []
        for step in members:
            for r in step[2]:
                if (r[0] != "s" or r[1] not in made) and all(r != i for i, _, _ in inputs):
                    row = rows.get(r[1]) if r[0] == "s" else None
                    inputs.append((r, "row", row[:2]) if row is not None and row[2] == size
                                  else _input(r, info, dtype))
        inside = set(group)
        used_after = {r[1] for k, step in enumerate(steps) if k not in inside
                      for r in step_refs(step) if r is not None and r[0] == "s"}
        used_after.update(r[1] for r in outputs if r is not None and r[0] == "s")
        outs = [s for step in members for s in step[4] if s in used_after]
        source = kernel_source(members, inputs, outs, dtype, size)
        kernel = load(source)
        if kernel is None:
            return steps
        arena = group[-1]
        refs, arguments, seen = [], [], set()
        for r, kind, value in inputs:
            if kind == "row":
                if value[0] not in seen:
                    seen.add(value[0])
                    refs.append(("a", value[0]))
                    arguments.append((dtype, lengths[value[0]], False))
            elif kind != "literal":
                r_shape, r_dtype, _ = info(r)
                refs.append(r)
                arguments.append((r_dtype, int(np.prod(r_shape)), len(r_shape) != 1))
        for q, slot in enumerate(outs):
            rows[slot] = (arena, q * size, size)
        lengths[arena] = len(outs) * size
        numpy = (_numpy_group(members, inputs, outs, shape, info)
                 if source.endswith("return far\n") else None)
        kernels_at[group[-1]] = ("fused", kernel, tuple(refs), tuple(outs), shape, dtype,
                                 tuple(arguments), arena, numpy)
        members_of.update(group)
    return [kernels_at[k] if k in kernels_at else step
            for k, step in enumerate(steps) if k not in members_of or k in kernels_at]


def _numpy_group(members, inputs, outs, shape, info):
    """The group computed by its ops' numpy forwards, called with the kernel's arguments
    when the kernel reports an input its vector forms do not cover: the numbers eager
    mode gives, written into the arena's rows."""
    size = int(np.prod(shape))

    def run(*args):
        values, position, arenas = {}, 0, {}
        for ref, kind, value in inputs:
            if kind == "literal":
                values[ref] = info(ref)[2]
                continue
            if kind == "row":
                if value[0] not in arenas:
                    arenas[value[0]] = args[position]
                    position += 1
                values[ref] = arenas[value[0]][value[1]:value[1] + size].reshape(shape)
            else:
                values[ref] = args[position].reshape(info(ref)[0])
                position += 1
        for _, opdef, refs, _, slots, _ in members:
            values[("s", slots[0])] = opdef.forward(*(values[r] for r in refs))
        out = args[-1]
        for q, slot in enumerate(outs):
            out[q * size:(q + 1) * size] = values[("s", slot)].reshape(-1)
    return run


def call_lines(step, key, val, namespace, read):
    """Program lines (trace_program.py) that run a fused step: its arena, the views of
    the rows that other steps or the outputs `read` (slots), the kernel's call.
    `val(ref)` names a value; `namespace` receives the kernel and the shapes."""
    _, kernel, refs, outs, shape, dtype, arguments, arena, numpy = step
    namespace[f"k{key}"], namespace[f"shape{key}"] = kernel, shape
    namespace[f"numpy{key}"] = numpy
    namespace[f"dtype{key}"] = dtype
    size = int(np.prod(shape))
    lines = [f"    arena{arena} = E({len(outs) * size}, dtype{key})"]
    for q, slot in enumerate(outs):
        if slot in read:
            view = f"arena{arena}[{q * size}:{(q + 1) * size}]"
            lines.append(f"    s{slot} = {view}" if len(shape) == 1 else
                         f"    s{slot} = {view}.reshape(shape{key})")
    args = [f"arena{r[1]}" if r[0] == "a" else val(r) + (".reshape(-1)" if flat else "")
            for r, (_, _, flat) in zip(refs, arguments)]
    call = f"({', '.join(args + [f'arena{arena}'])})"
    lines.append(f"    if k{key}{call}:  # fused\n        numpy{key}{call}" if numpy is not None
                 else f"    k{key}{call}  # fused")
    return lines


def warm(steps):
    """Compile each fused kernel of `steps` for its argument types now, by calling it on
    zero-filled arrays of the right dtypes and lengths (a fused kernel has no side
    effect; its loop runs over the traced length, so shorter arrays would not do)."""
    for step in steps:
        if step[0] != "fused":
            continue
        _, kernel, refs, outs, shape, dtype, arguments, _, _ = step
        kernel(*[np.zeros(length, d) for d, length, _ in arguments],
               np.zeros(len(outs) * int(np.prod(shape)), dtype))
