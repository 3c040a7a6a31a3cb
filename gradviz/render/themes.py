"""Colour themes for rendering. Plain hex strings, so the app and tests can read them without Qt.

Value and gradient previews use different hues everywhere (blue-ish values, orange
gradients) so a projected slide or a greyscale print still tells them apart by label.
"""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Theme:
    name: str
    background: str
    grid_dot: str
    card: str
    card_border: str
    header: dict = field(default_factory=dict)   # node kind -> header colour
    header_text: str = "#ffffff"
    text: str = "#1f2328"
    muted: str = "#5b636e"
    value: str = "#1d4f91"          # value numbers
    gradient: str = "#b34700"       # gradient numbers and labels
    gradient_fill: str = "#fff1e6"
    value_fill: str = "#eef3fa"
    edge: str = "#6b7380"
    cut: str = "#c62828"
    port: str = "#ffffff"
    source: str = "#2e7d32"
    target: str = "#6a1b9a"
    active: str = "#f4a100"         # highlight of the active node in a story step
    cotangent: str = "#e4572e"      # the travelling cotangent arrow
    formula_card: str = "#fffdf5"
    formula_border: str = "#e0b84c"
    error: str = "#c62828"
    warning: str = "#a15c00"      # a NaN or inf: the graph still runs
    # Diverging colour map for heatmaps: negative, zero, positive.
    diverging: tuple = ("#2166ac", "#f7f7f7", "#b2182b")


_HEADERS_LIGHT = {
    "constant": "#546e7a",
    "variable": "#2e7d32",
    "op": "#1565c0",
    "layer": "#6a1b9a",
    "custom_gradient": "#ad1457",
}

LIGHT = Theme(
    name="light",
    background="#ffffff",
    grid_dot="#e3e6ea",
    card="#ffffff",
    card_border="#9aa3ad",
    header=_HEADERS_LIGHT,
)

DARK = Theme(
    name="dark",
    background="#1b1e23",
    grid_dot="#2a2f36",
    card="#262a31",
    card_border="#4a525e",
    header={
        "constant": "#607d8b",
        "variable": "#388e3c",
        "op": "#1e6fd0",
        "layer": "#8e44ad",
        "custom_gradient": "#c2185b",
    },
    header_text="#ffffff",
    text="#e6e9ee",
    muted="#9aa4b1",
    value="#8cc4ff",
    gradient="#ffa95e",
    gradient_fill="#3a2c22",
    value_fill="#22303f",
    edge="#8a94a3",
    cut="#ff6b6b",
    port="#262a31",
    source="#5fbf64",
    target="#c08be0",
    active="#ffc53d",
    cotangent="#ff7a50",
    formula_card="#2b2a22",
    formula_border="#c9a23c",
    error="#ff6b6b",
    warning="#ffb74d",
    diverging=("#4393c3", "#2a2d33", "#d6604d"),
)

HIGH_CONTRAST = Theme(
    name="high-contrast",
    background="#ffffff",
    grid_dot="#ffffff",
    card="#ffffff",
    card_border="#000000",
    header={k: "#000000" for k in _HEADERS_LIGHT},
    header_text="#ffffff",
    text="#000000",
    muted="#000000",
    value="#0033aa",
    gradient="#b00000",
    gradient_fill="#ffffff",
    value_fill="#ffffff",
    edge="#000000",
    cut="#b00000",
    port="#ffffff",
    source="#006400",
    target="#4b0082",
    active="#ff8c00",
    cotangent="#b00000",
    formula_card="#ffffff",
    formula_border="#000000",
    error="#b00000",
    warning="#8a4b00",
    diverging=("#0033aa", "#ffffff", "#b00000"),
)

# Presentation mode and slides: white (prints without a toner flood), black type and
# borders, and the Okabe-Ito colour-blind-safe hues darkened until white header text
# passes WCAG AA. Values are blue and gradients vermilion (the blue/orange axis every
# common colour-vision deficiency keeps); in a greyscale print they differ by label.
CONTRAST = Theme(
    name="contrast",
    background="#ffffff",
    grid_dot="#d0d0d0",
    card="#ffffff",
    card_border="#000000",
    header={
        "constant": "#3d3d3d",
        "variable": "#00664f",
        "op": "#005a8f",
        "layer": "#5e3c99",
        "custom_gradient": "#9c3d73",
    },
    header_text="#ffffff",
    text="#000000",
    muted="#2b2b2b",
    value="#003f7f",
    gradient="#a33a00",
    gradient_fill="#fde7d8",
    value_fill="#e3eef9",
    edge="#000000",
    cut="#a33a00",
    port="#ffffff",
    source="#00664f",
    target="#5e3c99",
    active="#c98a00",
    cotangent="#c25100",
    formula_card="#ffffff",
    formula_border="#000000",
    error="#b00020",
    warning="#8a4b00",
    diverging=("#0072b2", "#ffffff", "#d55e00"),
)

THEMES = {t.name: t for t in (LIGHT, DARK, HIGH_CONTRAST, CONTRAST)}


def get_theme(theme):
    """A Theme from a Theme or a name; unknown names raise ValueError listing the choices."""
    if isinstance(theme, Theme):
        return theme
    try:
        return THEMES[theme]
    except KeyError:
        raise ValueError(f"unknown theme '{theme}' (choose from {', '.join(THEMES)})") from None
