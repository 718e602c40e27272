"""The PDF loader: text per page with pypdfium2 (PDFium: permissive licence, fast, page-accurate).

A PDF becomes one :class:`~ragd.types.Document` of format ``pdf``: the pages' text in
order, separated by form feeds (``\\f``), each page normalised like any text (line
breaks unified, controls removed, NFC). Page numbers are the ones the PDF prints where a
page carries a numeric page label, else 1-based (``metadata.page_labels``, one per
page). Metadata: ``pdf`` (the file name), ``authority`` (from the folder the file sits in:
``fda`` → FDA, ``ema``/``eu_gmp`` → EMA, ``ich`` → ICH, ``pic_s`` → PICS, ``who`` → WHO,
``sops`` → SOPS, anything else OTHER), ``label`` (the file's name in words with its source
folder: ``eu gmp chapter 5``), ``title`` (the PDF's own when it is a real title, else the
file stem in words), ``pages``. A sidecar ``NAME.pdf.md`` beside the file may override any
of them in its YAML front matter (and ``ragd ingest --meta`` overrides both).

Bad PDFs are reported and skipped, naming the file: encrypted (``encrypted``), corrupt or
not a PDF (``corrupt``; PDFium opens no PDF without pages), no text layer on any page (``no_text``,
an image-only scan), over the size limit, or needing more than 1.5 GB or 5 minutes to read
(``too_large``: each PDF is read in a child process with those caps, so a PDF bomb stops there).

Some PDFs map the ``fi``/``ffi`` ligatures to ``E``/``F`` (``identiEed``); a document
with many such words inside lowercase text has them repaired.
"""

from __future__ import annotations

import os
import re
from typing import Any, Iterator

from ..types import Document
from .base import FileRef, LoadFailure, LoadOptions, too_large_reason
from .frontmatter import (FrontMatterError, interpret_front_matter, parse_front_matter,
                          split_front_matter)
from .normalize import normalize_text, unify_newlines

AUTHORITY_BY_FOLDER = {"fda": "FDA", "ema": "EMA", "eu_gmp": "EMA", "ich": "ICH",
                       "pic_s": "PICS", "pics": "PICS", "who": "WHO", "sops": "SOPS",
                       "sop": "SOPS"}
"""The authority of a PDF from the nearest folder named here (case-insensitive)."""
OTHER = "OTHER"
SIDECAR = ".md"           # NAME.pdf.md: front matter overriding the PDF's metadata

# Private-use glyphs some PDFs use for bullets and dashes.
_GLYPHS = str.maketrans({"\uf0b7": "•", "\uf0a7": "•", "\uf0d8": "•", "\uf02d": "-",
                         "\uf050": "•", "\u00a0": " ", "\u00ad": ""})
_LIGATURE = re.compile(r"(?<=[a-z])([EF])(?=[a-z])")
_LIGATURE_MIN = 5


def authority_of(rel: str) -> str:
    """The authority of a file from the nearest enclosing folder that names one."""
    for part in reversed(rel.split("/")[:-1]):
        found = AUTHORITY_BY_FOLDER.get(part.lower())
        if found:
            return found
    return OTHER


def _title(meta_title: str | None, stem: str) -> str:
    """The PDF's title when it is one (not a word-processor file name), else the stem."""
    t = " ".join((meta_title or "").split())
    if len(t.split()) >= 2 and not re.match(r"(?i)^(microsoft|untitled|document\d*\b)", t) \
            and not re.search(r"(?i)\.(docx?|pdf|indd|rtf)\b", t):
        return t
    return " ".join(stem.replace("_", " ").split())


def label_of(rel: str) -> str:
    """A PDF's name in words, with the folder that names its source (``eu_gmp/chapter_5.pdf``
    → ``eu gmp chapter 5``): what a question calls it, embedded and indexed with its chunks."""
    parts = rel.split("/")
    folder = parts[-2] if len(parts) > 1 and parts[-2].lower() not in ("others", "other") else ""
    stem = parts[-1][:-4] if parts[-1].lower().endswith(".pdf") else parts[-1]
    return " ".join(f"{folder} {stem}".replace("_", " ").split())


def repair_ligatures(pages: list[str]) -> list[str]:
    """``identiEed`` → ``identified``, ``oFce`` → ``office`` in a document where such words
    are frequent (a font without its ligatures' Unicode mapping)."""
    hits = sum(len(_LIGATURE.findall(p)) for p in pages)
    if hits < _LIGATURE_MIN:
        return pages
    return [_LIGATURE.sub(lambda m: "fi" if m.group(1) == "E" else "ffi", p) for p in pages]


def _label(raw: str | None, index: int) -> int:
    """The page number: the PDF's numeric page label, else the 1-based page index."""
    text = (raw or "").strip()
    return int(text) if text.isdigit() and 0 < int(text) < 1_000_000 else index + 1


def _sidecar(ref: FileRef) -> dict[str, Any] | LoadFailure:
    path = ref.source + SIDECAR
    if not os.path.isfile(path):
        return {}
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read(1 << 20)
        block, _, closing = split_front_matter(unify_newlines(text))
        if block is None:
            return {}
        front = interpret_front_matter(parse_front_matter(block, closing))
    except (OSError, UnicodeDecodeError) as exc:
        return LoadFailure(path, f"cannot read the sidecar: {exc}", "unreadable")
    except FrontMatterError as exc:
        return LoadFailure(path, exc.reason, exc.code)
    meta = dict(front.metadata)
    if front.title:
        meta["title"] = front.title
    return meta


PDF_MEMORY_MB = 1536
"""Address space a PDF may take while it is read (its own process): a bomb stops there."""
PDF_SECONDS = 300.0
"""Time a PDF may take to be read."""


class PdfTooComplex(Exception):
    """A PDF that would not be read within the memory or time it is given."""


def extract_pages(path: str, memory_mb: int = PDF_MEMORY_MB,
                  seconds: float = PDF_SECONDS) -> tuple[list[str], list[int], str | None]:
    """(page texts, page numbers, the PDF's title) of a PDF, read in a child process
    capped at ``memory_mb`` and ``seconds`` (``pdf_worker.py``); raises on a bad file,
    :class:`PdfTooComplex` past either cap, ImportError without pypdfium2."""
    import json
    import subprocess
    import sys
    from pathlib import Path

    worker = Path(__file__).with_name("pdf_worker.py")
    try:
        run = subprocess.run([sys.executable, "-I", str(worker), path, str(memory_mb)],
                             capture_output=True, timeout=seconds, check=False)
    except subprocess.TimeoutExpired:
        raise PdfTooComplex(f"took over {seconds:.0f} s to read") from None
    try:
        result = json.loads(run.stdout or b"{}")
    except ValueError:
        result = {}
    if "texts" not in result:
        error = result.get("error")
        if error == "import":
            raise ImportError(result.get("detail", "pypdfium2"))
        if error == "pdf":
            raise ValueError(result.get("detail", ""))
        # a MemoryError, or PDFium aborting when an allocation fails under the cap
        raise PdfTooComplex(f"needs over {memory_mb} MB to read (a decompression bomb?)")
    labels = [_label(raw, i) for i, raw in enumerate(result["labels"])]
    return list(result["texts"]), labels, result["title"]


def _why(exc: Exception) -> tuple[str, str]:
    text = str(exc)
    if "password" in text.lower() or "security" in text.lower():
        return "encrypted PDF (password protected); decrypt it first", "encrypted"
    if "PDFium: Success" in text:   # PDFium loads no document without a page tree
        return "not a readable PDF (no pages, or a broken page tree)", "corrupt"
    return f"not a readable PDF ({text or type(exc).__name__})", "corrupt"


def load_pdf(ref: FileRef, options: LoadOptions) -> Iterator[Document | LoadFailure]:
    """One PDF file as a document of its pages (see the module doc)."""
    try:
        size = os.stat(ref.source).st_size
    except OSError as exc:
        yield LoadFailure(ref.source, f"cannot read: {exc.strerror or exc}", "unreadable")
        return
    if size > options.max_document_bytes:
        yield LoadFailure(ref.source, too_large_reason(size, options.max_document_bytes),
                          "too_large")
        return
    try:
        raw, labels, meta_title = extract_pages(ref.source)
    except ImportError:
        yield LoadFailure(ref.source, "reading PDFs needs pypdfium2 (pip install pypdfium2)",
                          "unsupported")
        return
    except PdfTooComplex as exc:
        yield LoadFailure(ref.source, f"PDF not read: it {exc}", "too_large")
        return
    except Exception as exc:  # noqa: BLE001 - pdfium's errors for bad files
        reason, code = _why(exc)
        yield LoadFailure(ref.source, reason, code)
        return
    if not raw:
        yield LoadFailure(ref.source, "PDF has no pages", "empty")
        return
    pages = repair_ligatures([normalize_text(p.translate(_GLYPHS)) for p in raw])
    if not any(p.strip() for p in pages):
        yield LoadFailure(ref.source, f"no text layer on any of its {len(pages)} pages "
                          "(an image-only scan? run OCR first)", "no_text")
        return
    side = _sidecar(ref)
    if isinstance(side, LoadFailure):
        yield side
        return
    name = ref.name
    stem = name[:-4] if name.lower().endswith(".pdf") else name
    metadata: dict[str, Any] = {"pdf": name, "authority": authority_of(ref.rel),
                                "label": label_of(ref.rel), "pages": len(pages),
                                "page_labels": labels}
    metadata.update(side)
    title = str(metadata.pop("title", "") or _title(meta_title, stem))
    yield Document(doc_id=ref.rel, text="\f".join(pages), title=title, source=ref.source,
                   format="pdf", metadata=metadata)


LOADER_VERSION = "pdf-1"
"""Part of a PDF's fingerprint: change it when the text extracted from a PDF changes."""


def fingerprint(path: str) -> str:
    """sha256 of the PDF's bytes and of its sidecar's (when there is one) and of the
    loader's version: what :func:`load_pdf` reads besides the options, so an equal
    fingerprint is an equal document."""
    import hashlib

    digest = hashlib.sha256(LOADER_VERSION.encode() + b"\0")
    for name in (path, path + SIDECAR):
        try:
            with open(name, "rb") as handle:
                for block in iter(lambda: handle.read(1 << 20), b""):
                    digest.update(block)
        except FileNotFoundError:
            digest.update(b"\0no sidecar")
        digest.update(b"\0")
    return digest.hexdigest()


def load_sidecar(ref: FileRef, options: LoadOptions) -> Iterator[Document | LoadFailure]:
    """``NAME.pdf.md`` is metadata of ``NAME.pdf``, read by :func:`load_pdf`, not a document."""
    return iter(())
