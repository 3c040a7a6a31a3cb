import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))


@pytest.fixture(autouse=True, scope="session")
def _qt_app():
    """The application render tests paint with (a Renderer drawn directly needs one for fonts)."""
    from gradviz.render import ensure_app

    yield ensure_app()
