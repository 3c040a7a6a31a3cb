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
where numpy keeps it) in the dtype of the arrays: float32 stays float32.
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
    "Elu": "({0} if {0} > zero else dt(math.expm1({0})))",
    "EluGrad": "({0} if {1} > zero else {0} * ({1} + one))",
    "Maximum": "({0} if ({0} >= {1} or {0} != {0}) else {1})",
    "Minimum": "({0} if ({0} <= {1} or {0} != {0}) else {1})",
    "Masked": "({0} if {1} else zero)",
    "Pow": "{0} * {0}",  # only x ** 2 (see fusable)
}

# A group needs this many steps to be worth a kernel call; it stops at MAX_GROUP (the
# compile time of a loop grows faster than its body).
MIN_GROUP = 2
MAX_GROUP = 48

# numba calls libm once per element for these (no SIMD without SVML), where numpy runs
# SIMD loops: fused, they pay only on arrays this small, where numpy's per-call cost
# is the larger part.
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
    if opdef.type in TRANSCENDENTAL and int(np.prod(shape)) > TRANSCENDENTAL_MAX_SIZE:
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


def kernel_source(members, inputs, outputs, dtype):
    """The numba kernel for the group's steps. inputs: (ref, kind, value) in argument
    order, kind "array", "scalar" (a 1-element array) or "literal" (a constant written
    into the source, `value`); outputs: slots written to arrays."""
    names = {}
    lines = []
    # One 2-D array holds every output (a row each): with one array per output, LLVM
    # needs more runtime alias checks than it makes and leaves the loop scalar.
    args = (["n"] + [f"i{k}" for k, (_, kind, _) in enumerate(inputs) if kind != "literal"]
            + ["out"])
    head = [f"    dt = np.{np.dtype(dtype).name}", "    one = dt(1)", "    zero = dt(0)"]
    for k, (ref, kind, value) in enumerate(inputs):
        names[ref] = f"a{k}"
        if kind == "literal":
            head.append(f"    a{k} = dt({value!r})")
        elif kind == "scalar":
            head.append(f"    a{k} = i{k}[0]")
        else:
            lines.append(f"        a{k} = i{k}[j]")
    for step in members:
        _, opdef, refs, _, outs, _ = step
        value = FORMULAS[opdef.type].format(*(names[r] for r in refs))
        names[("s", outs[0])] = f"t{outs[0]}"
        lines.append(f"        t{outs[0]} = {value}")
    for k, slot in enumerate(outputs):
        lines.append(f"        out[{k}, j] = t{slot}")
    return ("import math\n\nimport numpy as np\nfrom numba import njit\n\n\n"
            "@njit(cache=True, nogil=True, error_model='numpy')\n"
            f"def kernel({', '.join(args)}):\n" + "\n".join(head)
            + "\n    for j in range(n):\n" + "\n".join(lines) + "\n")


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
    """`steps` with each group replaced by one ("fused", kernel, input refs, output
    slots, shape, dtype, input dtypes) step at the place of its last member."""
    found = groups(steps, info)
    if not found:
        return steps
    kernels_at = {}
    members_of = set()
    for group in found:
        members = [steps[k] for k in group]
        made = {s for step in members for s in step[4]}
        shape, dtype, _ = info(("s", members[0][4][0]))
        inputs = []
        for step in members:
            for r in step[2]:
                if (r[0] != "s" or r[1] not in made) and all(r != i for i, _, _ in inputs):
                    inputs.append(_input(r, info, dtype))
        inside = set(group)
        used_after = {r[1] for k, step in enumerate(steps) if k not in inside
                      for r in step_refs(step) if r is not None and r[0] == "s"}
        used_after.update(r[1] for r in outputs if r is not None and r[0] == "s")
        outs = [s for step in members for s in step[4] if s in used_after]
        kernel = load(kernel_source(members, inputs, outs, dtype))
        if kernel is None:
            return steps
        refs = tuple(r for r, kind, _ in inputs if kind != "literal")
        kernels_at[group[-1]] = ("fused", kernel, refs, tuple(outs), shape, dtype,
                                 tuple(info(r)[1] for r in refs))
        members_of.update(group)
    return [kernels_at[k] if k in kernels_at else step
            for k, step in enumerate(steps) if k not in members_of or k in kernels_at]


def warm(steps):
    """Compile each fused kernel of `steps` for its argument types now, by calling it on
    zero-filled arrays of the right dtypes (a fused kernel has no side effect)."""
    for step in steps:
        if step[0] != "fused":
            continue
        _, kernel, refs, outs, shape, dtype, in_dtypes = step
        kernel(0, *[np.zeros(1, d) for d in in_dtypes], np.zeros((len(outs), 1), dtype))
