"""The vendored WordPiece tokenizer of all-MiniLM-L6-v2 (see assets/.../SOURCE.txt).

Two configured copies: one for the model (truncation 256, dynamic padding) and
one for counting tokens during chunking (no truncation, no special tokens).
"""

from __future__ import annotations

from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Sequence

from tokenizers import Tokenizer

MODEL_DIR = "all-MiniLM-L6-v2"
MAX_SEQ_LENGTH = 256


def asset_path(name: str) -> Path:
    """Path of a file vendored under ``ragd/embedding/assets/all-MiniLM-L6-v2``."""
    return Path(str(resources.files("ragd.embedding") / "assets" / MODEL_DIR / name))


def _load() -> Tokenizer:
    return Tokenizer.from_file(str(asset_path("tokenizer.json")))


@lru_cache(maxsize=1)
def model_tokenizer() -> Tokenizer:
    """Tokenizer as the model needs it: truncation at 256, padding to the longest in a batch."""
    tok = _load()
    tok.no_padding()
    tok.enable_truncation(max_length=MAX_SEQ_LENGTH)
    tok.enable_padding(pad_id=0, pad_token="[PAD]")
    return tok


@lru_cache(maxsize=1)
def unpadded_tokenizer() -> Tokenizer:
    """Tokenizer as the model reads a text, without padding: truncation at 256 with the
    special tokens, so ``len(ids)`` is what the text costs the model and batches are padded
    by the caller."""
    tok = _load()
    tok.no_padding()
    tok.enable_truncation(max_length=MAX_SEQ_LENGTH)
    return tok


@lru_cache(maxsize=1)
def counting_tokenizer() -> Tokenizer:
    """Tokenizer for counting: no truncation, no padding."""
    tok = _load()
    tok.no_truncation()
    tok.no_padding()
    return tok


@lru_cache(maxsize=1)
def whole_words() -> frozenset[str]:
    """The whole words of the bundled model's WordPiece vocabulary (alphabetic entries, no
    ``##`` pieces): ordinary English, offline."""
    return frozenset(w for w in counting_tokenizer().get_vocab() if w.isalpha())


def count_tokens(texts: Sequence[str]) -> list[int]:
    """WordPiece token counts without [CLS]/[SEP] (what chunk sizes are measured in)."""
    if not texts:
        return []
    encodings = counting_tokenizer().encode_batch(list(texts), add_special_tokens=False)
    return [len(e.ids) for e in encodings]
