"""Read one PDF's pages in a child process with a memory cap (run as a script).

PDFium parses a page's whole content stream; a small file whose stream inflates to
hundreds of megabytes (a PDF bomb) would take the ingesting process with it. This script
caps its own address space (``RLIMIT_AS``) before it imports pypdfium2, reads the pages
and prints ``{"texts", "labels", "title"}`` or ``{"error"}`` as JSON on stdout. It is
run by path (``python pdf_worker.py FILE MB``), so it imports only the standard library
and pypdfium2, never the ragd package.
"""

from __future__ import annotations

import json
import resource
import sys


def _read(path: str) -> dict:
    import pypdfium2 as pdfium

    pdf = pdfium.PdfDocument(path)
    try:
        texts, labels = [], []
        for i in range(len(pdf)):
            page = pdf[i]
            try:
                textpage = page.get_textpage()
                try:
                    texts.append(textpage.get_text_bounded())
                finally:
                    textpage.close()
            finally:
                page.close()
            try:
                labels.append(pdf.get_page_label(i))
            except Exception:  # noqa: BLE001 - a broken label table: count pages instead
                labels.append(None)
        try:
            title = pdf.get_metadata_value("Title")
        except Exception:  # noqa: BLE001
            title = None
        return {"texts": texts, "labels": labels, "title": title}
    finally:
        pdf.close()


def main(argv: list[str]) -> int:
    path, megabytes = argv[1], int(argv[2])
    cap = megabytes * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    try:
        result = _read(path)
    except MemoryError:
        result = {"error": "memory", "detail": f"over {megabytes} MB"}
    except ImportError as exc:
        result = {"error": "import", "detail": str(exc)}
    except Exception as exc:  # noqa: BLE001 - pdfium's errors for bad files
        result = {"error": "pdf", "detail": str(exc) or type(exc).__name__}
    sys.stdout.write(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
