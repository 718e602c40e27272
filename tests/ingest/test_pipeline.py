"""The ingest pipeline: summary counts, skip-unchanged, re-chunk only what changed, bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragd import (EmbedModelMismatchError, Plan, UnknownCollectionError, ingest, make_embedder,
                  open_collection, retrieve)
from ragd.ingest.loaders import LoadOptions


def make_folder(root: Path) -> Path:
    (root / "sub").mkdir(parents=True)
    (root / "a.txt").write_text("Audit logs must be retained for 400 days. Apple banana.\n")
    (root / "b.md").write_text("---\ntitle: Tokens\n---\n# Tokens\n\nSession tokens must be "
                               "invalidated at logout.\n")
    (root / "sub" / "c.txt").write_text("Export of items requires a license under the EAR.\n")
    (root / "docs.jsonl").write_text(
        '{"id": "j1", "text": "Cheating and theft carry punishment."}\n'
        '{"id": "j2", "text": "Murder is punished.", "tags": ["ipc"]}\n')
    return root


def test_first_ingest_then_unchanged_then_one_edit(tmp_path, toy_collection):
    folder = make_folder(tmp_path / "docs")
    first = ingest([folder], toy_collection)
    assert (first.new, first.changed, first.unchanged, first.failed) == (5, 0, 0, 0)
    assert first.chunks == toy_collection.stats()["chunks"] >= 5

    again = ingest([folder], toy_collection)
    assert (again.new, again.changed, again.unchanged, again.chunks) == (0, 0, 5, 0)

    (folder / "a.txt").write_text("Audit logs must be retained for 500 days.\n")
    edited = ingest([folder], toy_collection)
    assert (edited.new, edited.changed, edited.unchanged) == (0, 1, 4)
    store = toy_collection.store
    versions = {d.doc_id: d.version for d in store.list_documents("test")}
    assert versions == {"a.txt": 2, "b.md": 1, "sub/c.txt": 1, "j1": 1, "j2": 1}
    texts = [c.text for c, _ in store.iter_chunks("test") if c.doc_id == "a.txt"]
    assert texts == ["Audit logs must be retained for 500 days."]


def test_tags_and_metadata_reach_chunks_and_filters(tmp_path, toy_collection):
    folder = make_folder(tmp_path / "docs")
    ingest([folder], toy_collection, options=LoadOptions(tags=("corpus",),
                                                         metadata={"batch": 7}))
    chunks = [c for c, _ in toy_collection.store.iter_chunks("test")]
    assert all("corpus" in c.tags and c.metadata.get("batch") == 7 for c in chunks)
    j2 = [c for c in chunks if c.doc_id == "j2"][0]
    assert set(j2.tags) == {"corpus", "ipc"}
    hits = retrieve("murder punishment", Plan(tags_all=("ipc", "corpus")), toy_collection)
    assert [c.doc_id for c in hits] == ["j2"]


def test_bad_files_are_reported_and_skipped_and_nothing_is_lost(tmp_path, toy_collection):
    good = make_folder(tmp_path / "docs")
    ingest([good], toy_collection)
    before = list(toy_collection.store.iter_chunks("test"))

    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "empty.txt").write_text("")
    (bad / "blank.md").write_text("   \n\n")
    (bad / "binary.txt").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)))
    (bad / "latin1.txt").write_bytes("caf\xe9 cr\xe8me".encode("latin-1"))
    (bad / "list.md").write_text("---\n- a\n- b\n---\n# Body\n\ntext\n")
    (bad / "scalar.md").write_text("---\njust a string\n---\nbody\n")
    (bad / "ok.txt").write_text("Export items need a license.")
    report = ingest([bad], toy_collection)
    reasons = {Path(f.source).name: f.reason for f in report.failures}
    assert set(reasons) == {"empty.txt", "blank.md", "binary.txt", "latin1.txt", "list.md",
                            "scalar.md"}
    assert "UTF-8" in reasons["latin1.txt"] and "byte 3" in reasons["latin1.txt"]
    assert "mapping" in reasons["list.md"]
    assert (report.new, report.failed) == (1, 6)
    after = {c.key: c for c, _ in toy_collection.store.iter_chunks("test")}
    assert all(after[c.key] == c for c, _ in before)


def test_huge_file_is_refused_by_the_size_limit(tmp_path, toy_collection):
    folder = tmp_path / "big"
    folder.mkdir()
    huge = folder / "huge.txt"
    with huge.open("w") as f:
        line = "Export of items requires a license under the EAR. " * 20 + "\n"
        while f.tell() < 50 * 1024 * 1024:
            f.write(line)
    (folder / "small.txt").write_text("Audit logs are retained.")
    report = ingest([folder], toy_collection)
    assert report.new == 1 and report.failed == 1
    reason = report.failures[0].reason
    assert "huge.txt" in report.failures[0].source
    assert "max_document_bytes" in reason or "max-document-mb" in reason
    small_limit = ingest([folder], toy_collection,
                         options=LoadOptions(max_document_bytes=10))
    assert small_limit.failed == 2 and small_limit.unchanged == 0


def test_unknown_collection_and_model_mismatch(tmp_path, toy, store):
    with pytest.raises(UnknownCollectionError) as exc:
        open_collection(store, "missing")
    assert "missing" in str(exc.value)
    open_collection(store, "bound", toy, create=True)
    with pytest.raises(EmbedModelMismatchError) as exc:
        open_collection(store, "bound", make_embedder({"kind": "toy", "vocabulary": ["x", "y"]}))
    assert toy.name in str(exc.value) and "toy-bow-" in str(exc.value)
    reopened = open_collection(store, "bound")
    assert reopened.embedder.name == toy.name


def test_a_nul_in_an_id_or_metadata_is_refused_at_load_time_on_both_backends(tmp_path,
                                                                              toy_collection):
    """One rule for NUL: text, titles and tags are normalised (it is removed), any other
    string holding one fails its document before any store sees it, on either backend."""
    corpus = tmp_path / "c.jsonl"
    corpus.write_text("\n".join(json.dumps(r) for r in [
        {"id": "ok", "text": "Export items need a license.", "title": "T\u0000itle",
         "tags": ["t\u0000ag"]},
        {"id": "meta", "text": "Some text here.", "metadata": {"note": "a\u0000b"}},
        {"id": "i\u0000d", "text": "More text here."},
    ]) + "\n")
    report = ingest([corpus], toy_collection)
    reasons = {f.source.rsplit(":", 1)[1]: (f.code, f.reason) for f in report.failures}
    assert sorted(reasons) == ["2", "3"]
    assert reasons["2"] == ("invalid", "document 'meta': metadata contains a NUL character, "
                                       "which no store holds")
    assert reasons["3"][0] == "invalid" and "doc_id contains a NUL" in reasons["3"][1]
    [doc] = toy_collection.store.list_documents("test")
    assert (doc.doc_id, doc.title) == ("ok", "Title")
    [(chunk, _)] = list(toy_collection.store.iter_chunks("test"))
    assert chunk.tags == ("tag",)
