"""A damped Newton step where the Hessian is flat: its parts along H's flat directions,
and the words that say the step there is g/λ, which the damping alone sets, not a Newton
step. The Hessian study (its ε), the Train card and `gradviz train` (the optimizer's λ)
say it alike."""
import numpy as np

from ..engine.errors import counted

# |λ| within this share of the largest |λ| counts as zero (float32 round-off): the Hessian
# study's rule (story.studies.definiteness) and the Newton step's.
EIGENVALUE_RTOL = 1e-6
DAMPED_SHARE = 0.1     # a Newton step whose part along H's flat directions is more than this


def flat_parts(hessian, gradient, step, tol, eigh=None):
    """(|gradient|, |step|) along the eigenvectors of H whose |λ| ≤ tol: where H is flat,
    the Newton step (H + εI)⁻¹ g is g/ε, which ε alone sets. (nan, nan) when H is not
    finite. `eigh`: (eigenvalues, eigenvectors) of (H + Hᵀ)/2, when the caller has them."""
    H = np.asarray(hessian, np.float64)
    if H.size == 0 or not np.isfinite(H).all():
        return (float("nan"),) * 2 if H.size else (0.0, 0.0)
    eig, basis = eigh if eigh is not None else np.linalg.eigh(0.5 * (H + H.T))
    flat = basis[:, np.abs(eig) <= tol]
    along = [float(np.linalg.norm(flat.T @ np.reshape(v, -1))) for v in (gradient, step)]
    return tuple(along)


def share_text(part, whole):
    """part / whole as a percentage a reader can trust: 'under 1%' rather than '0%'."""
    share = part / whole if whole > 0 else 0.0
    if share == 0:
        return "0%"
    return "under 1%" if share < 0.01 else f"{share:.0%}"


def gradient_step_words(gradient_norm, damping, number, letter="ε"):
    """What the damped Newton step is where H is zero, with |g| and the damping (`letter`:
    the Hessian study's ε, the optimizer's λ)."""
    return (f"(H + {letter}I)⁻¹ g is g/{letter}, a plain gradient step of length "
            f"|g|/{letter} = {number(gradient_norm / damping)}, not a Newton step.")


def flat_newton_words(hessian, gradient, step, damping, number, letter="λ"):
    """Why the damped Newton step (H + λI)⁻¹ g just taken is a plain gradient step, where it
    is one: H zero, or singular with more than DAMPED_SHARE of the step along its flat
    directions (g/λ there, which λ alone sets); '' for a step H shapes. The Train card and
    `gradviz train` say it where the step is taken (a zero H made a silent 1000·g step)."""
    H = np.asarray(hessian, np.float64)
    g, u = np.reshape(gradient, -1), np.reshape(step, -1)
    if H.size == 0 or not np.isfinite(H).all() or not np.isfinite(u).all() or damping <= 0:
        return ""
    if not H.any():
        return ("H is zero here: the loss has no curvature at this point in these parameters, "
                "so " + gradient_step_words(float(np.linalg.norm(g)), damping, number, letter))
    eig, basis = np.linalg.eigh(0.5 * (H + H.T))
    tol = EIGENVALUE_RTOL * float(np.abs(eig).max())
    _, flat_step = flat_parts(H, g, u, tol, (eig, basis))
    size = float(np.linalg.norm(u))
    if size == 0 or flat_step / size <= DAMPED_SHARE:
        return ""
    return singular_step_words(int((np.abs(eig) <= tol).sum()), letter,
                               share_text(flat_step, size)) + ", not a Newton step."


def singular_step_words(n_flat, letter, share):
    """Why a damped Newton step with `share` of it along H's `n_flat` flat directions is set
    by the damping `letter` (ε or λ) there: the Hessian study and the Train card say it alike."""
    return (f"H is singular ({counted(n_flat, 'eigenvalue')} ≈ 0) and the gradient points "
            f"partly along them: there the step is g/{letter}, which {letter} alone sets "
            f"({share} of |step|)")
