"""Where the sample documents live (shared by the graph tests)."""
from pathlib import Path

SAMPLES = Path(__file__).resolve().parents[2] / "samples"
SAMPLE_FILES = sorted(SAMPLES.glob("*.json"))
