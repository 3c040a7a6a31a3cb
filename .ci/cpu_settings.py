"""Settings that make this machine compute like other CPUs, for `.ci/run`'s second pass.

float32 results of BLAS and of numpy's SIMD loops differ in the last digits from one CPU
to another. OpenBLAS picks its kernel from OPENBLAS_CORETYPE, numpy its loops from what
NPY_DISABLE_CPU_FEATURES leaves enabled, and glibc its libm variant (exp, log: numba's
kernels call them) from GLIBC_TUNABLES. Each setting below is a CPU class the tests must
hold on; one the CPU cannot run (a kernel needing instructions it lacks) is skipped.

Prints one line per setting, `name<TAB>VAR=value ...`, and why a setting is skipped on
stderr. Run with the venv's python: the feature names come from the numpy installed.
"""
import sys

# OpenBLAS core -> the CPU flags (as /proc/cpuinfo spells them) its kernels execute.
CORE_NEEDS = {"Sandybridge": {"avx"}, "Haswell": {"avx2", "fma"},
              "SkylakeX": {"avx512f", "avx512bw", "avx512dq", "avx512vl"}}


def cpu_flags():
    try:
        with open("/proc/cpuinfo", encoding="ascii", errors="replace") as f:
            for line in f:
                if line.startswith("flags"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


def numpy_dispatch():
    """numpy's enabled runtime-dispatched feature groups (names differ between versions:
    numpy 2.4 has X86_V3 X86_V4 AVX512_ICL, numpy 1.26 AVX2 AVX512F AVX512_SKX ...)."""
    try:
        from numpy._core import _multiarray_umath as m
    except ImportError:  # numpy < 2
        from numpy.core import _multiarray_umath as m
    return [name for name in m.__cpu_dispatch__ if m.__cpu_features__.get(name)]


def is_avx512(name):
    return name.startswith("AVX512") or name == "X86_V4"


def settings():
    flags, dispatch = cpu_flags(), numpy_dispatch()
    no_avx512 = [n for n in dispatch if is_avx512(n)]
    wanted = [
        # An AVX2 desktop: Haswell BLAS, numpy without its AVX-512 loops.
        ("haswell-avx2", "Haswell", no_avx512, ""),
        # An older CPU: Sandybridge BLAS (AVX, no FMA), numpy's baseline loops only,
        # glibc's libm without FMA.
        ("sandybridge-baseline", "Sandybridge", dispatch,
         "glibc.cpu.hwcaps=-AVX512F,-AVX2,-FMA"),
    ]
    out = []
    for name, core, disabled, tunables in wanted:
        missing = CORE_NEEDS[core] - flags
        if missing:
            print(f"cpu_settings: skip {name}: the CPU lacks {' '.join(sorted(missing))}",
                  file=sys.stderr)
            continue
        env = [f"OPENBLAS_CORETYPE={core}"]
        if disabled:
            env.append(f"NPY_DISABLE_CPU_FEATURES={','.join(disabled)}")
        if tunables:
            env.append(f"GLIBC_TUNABLES={tunables}")
        out.append((name, env))
    return out


if __name__ == "__main__":
    for name, env in settings():
        print(name + "\t" + " ".join(env))
