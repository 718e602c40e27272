"""Document identity from files, nothing skipped without a word, stale documents pruned.

Issue points 3, 4 and 8: a different file never silently replaces a stored document, the
same file reached through another root is not stored twice, every file not loaded is
reported with its reason, and the documents of deleted files can be pruned. Both backends.
"""

from __future__ import annotations

import os
from pathlib import Path

from ragd import Plan, retrieve
from ragd.ingest.loaders import LoadOptions
from ragd.ingest.pipeline import ingest
from ragd.ingest.prune import prune


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def docs(coll) -> dict[str, str]:
    """doc_id -> the text of its first chunk."""
    return {c.doc_id: c.text for c, _ in coll.store.iter_chunks(coll.name)
            if c.chunk_index == 0}


def test_a_different_file_under_a_stored_doc_id_is_refused(tmp_path, toy_collection):
    a = write(tmp_path / "a" / "NOTES.md", "Audit logs are kept for 400 days.\n")
    b = write(tmp_path / "b" / "NOTES.md", "Export items need a license.\n")
    assert ingest([tmp_path / "a"], toy_collection).exit_code == 0
    second = ingest([tmp_path / "b"], toy_collection)
    assert (second.new, second.changed, second.failed, second.exit_code) == (0, 0, 1, 1)
    [failure] = second.failures
    assert failure.code == "conflict" and failure.source == str(b)
    for words in (str(a.resolve()), str(b.resolve()), "--id-prefix PREFIX", "--replace"):
        assert words in failure.reason
    assert docs(toy_collection) == {"NOTES.md": "Audit logs are kept for 400 days."}

    replaced = ingest([tmp_path / "b"], toy_collection, replace_others=True)
    assert (replaced.changed, replaced.exit_code) == (1, 0)
    assert docs(toy_collection) == {"NOTES.md": "Export items need a license."}
    store = toy_collection.store
    assert store.get_document("test", "NOTES.md").source_path == str(b.resolve())
    assert ingest([tmp_path / "b"], toy_collection).unchanged == 1  # b/ is that file now
    assert ingest([tmp_path / "a"], toy_collection).failures[0].code == "conflict"

    prefixed = ingest([tmp_path / "a"], toy_collection, options=LoadOptions(id_prefix="a/"))
    assert (prefixed.new, prefixed.exit_code) == (1, 0)
    assert docs(toy_collection) == {"NOTES.md": "Export items need a license.",
                                    "a/NOTES.md": "Audit logs are kept for 400 days."}
    # a file keeps the doc_id it is stored under, prefix or not
    assert ingest([tmp_path / "a"], toy_collection).unchanged == 1
    assert len(docs(toy_collection)) == 2


def test_the_same_file_through_another_root_keeps_its_doc_id(tmp_path, toy_collection):
    write(tmp_path / "a" / "f.md", "Audit logs.\n")
    write(tmp_path / "a" / "sub" / "g.md", "Export licenses for items.\n")
    assert ingest([tmp_path / "a"], toy_collection).new == 2
    again = ingest([tmp_path / "a" / "sub"], toy_collection)
    assert (again.new, again.unchanged, again.exit_code) == (0, 1, 0)
    assert set(docs(toy_collection)) == {"f.md", "sub/g.md"}
    write(tmp_path / "a" / "sub" / "g.md", "Export licenses for red items.\n")
    edited = ingest([tmp_path / "a" / "sub"], toy_collection)
    assert edited.changed == 1
    assert docs(toy_collection) == {"f.md": "Audit logs.", "sub/g.md":
                                    "Export licenses for red items."}


def test_a_doc_id_kept_by_one_file_is_not_taken_by_another_in_the_same_run(tmp_path,
                                                                            toy_collection):
    write(tmp_path / "a" / "sub" / "g.md", "Export licenses.\n")
    ingest([tmp_path / "a" / "sub"], toy_collection)          # stored as "g.md"
    write(tmp_path / "a" / "g.md", "Audit logs.\n")           # another file, rel "g.md"
    report = ingest([tmp_path / "a"], toy_collection, replace_others=True)
    # a/g.md replaces "g.md" (--replace); a/sub/g.md, which "g.md" was, may not reuse it
    assert [f.code for f in report.failures] == ["duplicate"]
    assert docs(toy_collection) == {"g.md": "Audit logs."}


def test_the_same_file_twice_in_one_run_is_loaded_once(tmp_path, toy_collection):
    write(tmp_path / "a" / "sub" / "g.md", "Export licenses.\n")
    write(tmp_path / "a" / "real.txt", "Audit logs.\n")
    os.symlink(tmp_path / "a" / "real.txt", tmp_path / "a" / "alias.txt")
    report = ingest([tmp_path / "a", tmp_path / "a" / "sub"], toy_collection)
    assert (report.new, report.failed, report.exit_code) == (2, 0, 0)
    assert sorted(f.code for f in report.skipped) == ["same_file", "same_file"]
    assert set(docs(toy_collection)) == {"alias.txt", "sub/g.md"}


def test_every_file_not_loaded_is_reported_and_failures_set_the_exit_code(tmp_path,
                                                                          toy_collection):
    only = tmp_path / "only"
    write(only / "scan.docx", "PK")
    write(only / "sheet.xlsx", "PK")
    nothing = ingest([only], toy_collection)
    assert nothing.documents == 0 and nothing.exit_code == 1
    assert sorted((Path(f.source).name, f.code) for f in nothing.skipped) == [
        ("scan.docx", "unsupported"), ("sheet.xlsx", "unsupported")]
    assert nothing.by_reason() == {"unsupported type": 2}
    write(only / "data.json", '[{"id": 1}]')  # a JSON array that is neither documents nor an act
    refused = ingest([only / "data.json"], toy_collection)
    assert (refused.loaded, refused.failed, refused.exit_code) == (0, 1, 1)
    assert refused.failures[0].source == str(only / "data.json")

    mixed = tmp_path / "mixed"
    write(mixed / "good.txt", "Audit logs.\n")
    write(mixed / "scan.docx", "PK")
    (mixed / "bad.txt").write_bytes(b"\xff\xfe\x00b")
    big = write(mixed / "big.md", "x " * 600)
    report = ingest([mixed], toy_collection, options=LoadOptions(max_document_bytes=1000))
    assert (report.new, report.failed, report.exit_code) == (1, 2, 1)
    assert report.by_reason() == {"bad encoding": 1, "too large": 1, "unsupported type": 1}
    assert {f.source for f in report.failures} == {str(mixed / "bad.txt"), str(big)}
    assert report.as_dict()["skipped"][0]["code"] == "unsupported"
    assert set(docs(toy_collection)) == {"good.txt"}

    clean = ingest([mixed / "good.txt"], toy_collection)
    assert (clean.unchanged, clean.exit_code) == (1, 0)

    every = tmp_path / "every"
    (every / "x.txt").parent.mkdir()
    (every / "x.txt").write_bytes(b"\x00\x01binary")
    write(every / "empty.md", "")
    failed = ingest([every], toy_collection)
    assert (failed.failed, failed.loaded, failed.exit_code) == (2, 0, 1)


def test_prune_removes_the_documents_of_deleted_files_only(tmp_path, toy_collection):
    root = tmp_path / "dir"
    write(root / "one.md", "Audit logs are retained.\n")
    two = write(root / "two.md", "Withdrawn: export license for items.\n")
    write(root / "sub" / "three.md", "Session tokens.\n")
    outside = write(tmp_path / "elsewhere" / "four.md", "Export items elsewhere.\n")
    ingest([root], toy_collection)
    ingest([outside], toy_collection)
    from ragd.ingest.pipeline import ingest_documents
    from ragd.types import Document
    ingest_documents([Document("api-doc", "export license items via the API")], toy_collection)

    two.unlink()
    outside.unlink()
    again = ingest([root], toy_collection)
    assert "two.md" in docs(toy_collection)  # not pruned unless asked
    assert again.exit_code == 0
    hits = retrieve("export license", Plan(k=10, mode="lexical"), toy_collection)
    assert "two.md" in {c.doc_id for c in hits}

    assert prune([root], toy_collection, dry_run=True) == ["two.md"]
    assert "two.md" in docs(toy_collection)
    assert prune([root], toy_collection) == ["two.md"]
    assert set(docs(toy_collection)) == {"one.md", "sub/three.md", "four.md", "api-doc"}
    hits = retrieve("export license", Plan(k=10, mode="lexical"), toy_collection)
    assert "two.md" not in {c.doc_id for c in hits}
    assert prune([root], toy_collection) == []
    assert prune([root / "sub"], toy_collection) == []
