"""The heading-aware Markdown policy."""

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ragd.chunking import chunk
from ragd.types import ChunkPolicy

ASVS = Path("/work/shared/data/markdown-asvs/0x16-V7-Session-Management.md")


def words(texts):
    """A predictable token counter: one token per whitespace-separated word."""
    return [len(t.split()) for t in texts]


def md(text, target=200, max_chars=2000, title="", counter=words):
    pol = ChunkPolicy(target_tokens=target, overlap_tokens=0, max_chars=max_chars)
    return chunk(text, pol, fmt="markdown", context=title, doc_id="m", count_tokens=counter)


def para(tag: str, n: int) -> str:
    return " ".join([f"{tag.capitalize()}"] + [f"{tag}{i}" for i in range(n - 2)] + ["end."])


def line_owners(text, chunks):
    """For each non-blank line (by position), how many chunk spans hold all its non-space text."""
    owners = {}
    pos = 0
    for number, line in enumerate(text.split("\n")):
        if line.strip():
            s = pos + len(line) - len(line.lstrip())
            e = pos + len(line.rstrip())
            owners[number] = sum(1 for c in chunks if c.start_offset <= s and e <= c.end_offset)
        pos += len(line) + 1
    return owners


def test_empty_markdown_gives_no_chunks():
    assert md("") == [] and md("\n  \n") == []


def test_small_document_is_one_chunk_with_the_title_path():
    text = "\n# Guide #\n\nIntro.\n\n## A\n\nAlpha.\n\n## B\n\nBeta.\n"
    [c] = md(text)
    assert c.text == text.strip() and text[c.start_offset:c.end_offset] == c.text
    assert c.context == "Guide" == c.metadata["heading_path"]
    assert c.metadata["heading_level"] == 0


def test_title_argument_is_used_without_an_h1():
    [c] = md("## A\n\nAlpha.", title="Doc Title")
    assert c.context == "Doc Title"
    [c] = md("Just text.")
    assert c.context == "" and c.metadata["heading_path"] == ""


def test_long_document_splits_at_level_two_and_keeps_the_preamble():
    text = (f"# Guide\n\n{para('intro', 6)}\n\n## Alpha\n\n{para('alpha', 6)}\n\n"
            f"## Beta ##\n\n{para('beta', 6)}\n")
    chunks = md(text, target=10)
    assert [c.context for c in chunks] == ["Guide", "Guide > Alpha", "Guide > Beta"]
    assert [c.metadata["heading_level"] for c in chunks] == [0, 2, 2]
    assert chunks[1].text == f"## Alpha\n\n{para('alpha', 6)}"
    assert [c.chunk_index for c in chunks] == [0, 1, 2]
    for c in chunks:
        assert text[c.start_offset:c.end_offset] == c.text


def test_heading_only_preamble_joins_the_first_section():
    text = f"# Guide\n\n## Alpha\n\n{para('alpha', 6)}\n\n## Beta\n\n{para('beta', 6)}"
    chunks = md(text, target=10)
    assert [c.context for c in chunks] == ["Guide > Alpha", "Guide > Beta"]
    assert chunks[0].text.startswith("# Guide\n\n## Alpha")


def test_level_three_and_deeper_split_only_where_needed():
    text = (f"# G\n\n## Small\n\n{para('small', 5)}\n\n"
            f"## Big\n\n{para('big', 4)}\n\n### One\n\n{para('one', 5)}\n\n"
            f"### Two\n\n{para('two', 3)}\n\n#### Deep\n\n{para('deep', 8)}\n\n"
            f"##### Deeper\n\n{para('deeper', 8)}\n")
    chunks = md(text, target=12)
    assert [c.context for c in chunks] == [
        "G > Small", "G > Big", "G > Big > One", "G > Big > Two",
        "G > Big > Two > Deep", "G > Big > Two > Deep > Deeper"]
    assert [c.metadata["heading_level"] for c in chunks] == [2, 2, 3, 3, 4, 5]
    assert all(c.tokens <= 12 for c in chunks)


def test_skipped_heading_levels():
    text = f"# G\n\n## S\n\n{para('s', 8)}\n\n#### Deep\n\n{para('deep', 8)}"
    chunks = md(text, target=12)
    assert [c.context for c in chunks] == ["G > S", "G > S > Deep"]
    assert chunks[1].metadata["heading_level"] == 4


def test_hashes_inside_fenced_code_are_not_headings():
    code = "```python\n# not a heading\nx = 1\n\n## nor this\n```"
    tilde = "~~~\n## still code\n~~~"
    text = f"# G\n\n## Real\n\n{code}\n\n{tilde}\n\n{para('after', 20)}\n"
    chunks = md(text, target=24)
    assert [c.context for c in chunks] == ["G > Real", "G > Real"]
    assert code in chunks[0].text and tilde in chunks[0].text
    assert all("nor this" not in c.context for c in chunks)


def test_paragraphs_are_packed_greedily_and_never_cut_when_they_fit():
    paras = [para(f"p{i}x", 5) for i in range(7)]
    text = "## S\n\n" + "\n\n".join(paras)
    chunks = md(text, target=10)
    assert [c.text for c in chunks] == [
        f"## S\n\n{paras[0]}", f"{paras[1]}\n\n{paras[2]}", f"{paras[3]}\n\n{paras[4]}",
        f"{paras[5]}\n\n{paras[6]}"]


def test_over_long_table_splits_at_rows_repeating_the_header():
    header = "| Id | Text |\n| --- | --- |"
    rows = [f"| {i} | {para(f'r{i}x', 6)} |" for i in range(6)]
    text = f"## T\n\n{header}\n" + "\n".join(rows)
    chunks = md(text, target=30)
    assert len(chunks) > 1
    for c in chunks:
        assert c.tokens <= 30
        assert c.text.startswith(header) or c.text.startswith("## T")
        body = c.text[len(header) + 1:] if c.metadata.get("table_header_repeated") else c.text
        assert text[c.start_offset:c.end_offset] == body
    assert all(sum(row in c.text for c in chunks) == 1 for row in rows)
    assert all(n == 1 for n in line_owners(text, chunks).values())


def test_over_long_list_splits_at_items():
    items = [f"- {para(f'i{i}x', 5)}\n  continued line {i}" for i in range(6)]
    text = "## L\n\n" + "\n".join(items)
    chunks = md(text, target=16)
    assert all(c.tokens <= 16 for c in chunks)
    assert all(sum(item in c.text for c in chunks) == 1 for item in items)


def test_over_long_paragraph_splits_by_sentences_without_overlap():
    sentences = [f"Sentence{i} has exactly five words." for i in range(8)]
    text = "## P\n\n" + " ".join(sentences)
    chunks = md(text, target=12)
    assert all(c.tokens <= 12 for c in chunks)
    assert [c.text for c in chunks] == ["## P\n\n" + " ".join(sentences[:2])] + [
        " ".join(sentences[i:i + 2]) for i in (2, 4, 6)]


def test_max_chars_holds_for_markdown_chunks():
    text = "# G\n\n" + "\n\n".join(f"Para {i} " + "y" * 150 for i in range(5)) + "\n\n" + "z" * 500
    chunks = md(text, target=200, max_chars=120)
    assert chunks and all(len(c.text) <= 120 for c in chunks)


def test_heading_text_is_cleaned():
    text = f"#   Title  ###\n\n## C# basics\n\n{para('c', 9)}\n\n##   Spaced   ##  \n\n{para('s', 9)}"
    chunks = md(text, target=16)
    assert [c.context for c in chunks] == ["Title > C# basics", "Title > Spaced"]


def test_deterministic():
    text = ASVS.read_text(encoding="utf-8") if ASVS.exists() else "# T\n\n" + para("x", 400)
    assert md(text, target=64, counter=None) == md(text, target=64, counter=None)


@pytest.mark.parametrize("target", [200, 150])
def test_real_asvs_chapter(target):
    if not ASVS.exists():
        pytest.skip("ASVS data not present")
    text = ASVS.read_text(encoding="utf-8")
    pol = ChunkPolicy(target_tokens=target, overlap_tokens=0)
    chunks = chunk(text, pol, fmt="markdown", doc_id="asvs-v7")
    assert len(chunks) > 5
    assert all(c.tokens <= target and len(c.text) <= pol.max_chars for c in chunks)
    contexts = {c.context for c in chunks}
    assert "V7 Session Management > V7.4 Session Termination" in contexts
    assert all(c.context.startswith("V7 Session Management > ") for c in chunks)
    rows = [ln for ln in text.splitlines() if re.match(r"\| \*\*7\.\d\.\d\*\* \|", ln)]
    assert len(rows) == 19
    for row in rows:
        assert sum(row in c.text for c in chunks) == 1, row
    termination = [c for c in chunks if c.context.endswith("V7.4 Session Termination")]
    assert any("| **7.4.1** |" in c.text for c in termination)
    assert all(n == 1 for n in line_owners(text, chunks).values())
    for c in chunks:
        if not c.metadata.get("table_header_repeated"):
            assert text[c.start_offset:c.end_offset] == c.text



_BLOCKS = st.sampled_from([
    "# Title", "## Section", "### Sub", "#### Deep", "Plain words here.", "A much longer "
    "paragraph of text that goes on. And on!", "- item one\n- item two", "```\n# code\n```",
    "| a | b |\n|---|---|\n| 1 | 2 |\n| 3 | 4 |", "x" * 300, "汉字" * 120, "word " * 80])


@settings(max_examples=100, deadline=None)
@given(st.lists(_BLOCKS, max_size=25), st.integers(8, 80), st.integers(64, 300))
def test_property_markdown_limits_and_coverage(blocks, target, max_chars):
    text = "\n\n".join(blocks)
    pol = ChunkPolicy(target_tokens=target, overlap_tokens=0, max_chars=max_chars)
    chunks = chunk(text, pol, fmt="markdown")
    for c in chunks:
        assert 0 < len(c.text) <= max_chars
        assert c.tokens <= target
    covered = [0] * len(text)
    for c in chunks:
        for k in range(c.start_offset, c.end_offset):
            covered[k] += 1
    assert all(covered[k] == 1 or (covered[k] == 0 and text[k].isspace())
               for k in range(len(text)))


def test_model_counter_is_named_in_the_policy_and_never_implicit():
    """``counter = "model"``: the limit counts WordPiece tokens; by default it counts words."""
    from ragd.embedding.tokenizer import count_tokens

    text = ("# Terms\n\nPre-authorisation re-export dual-use end-user.\n\n"
            "## More\n\nNon-proliferation counter-terrorism anti-boycott.")
    words_total = len(text.split())
    model_total = count_tokens([text])[0]
    assert words_total < 20 < model_total
    by_words = chunk(text, ChunkPolicy(target_tokens=20, overlap_tokens=0), fmt="markdown")
    by_model = chunk(text, ChunkPolicy(target_tokens=20, overlap_tokens=0, counter="model"),
                     fmt="markdown")
    assert len(by_words) == 1 and len(by_model) == 2
    assert [c.tokens for c in by_model] == [len(c.text.split()) for c in by_model]
    # a given model counter is used only under counter = "model"
    huge = lambda texts: [10_000 for _ in texts]  # noqa: E731
    assert chunk(text, ChunkPolicy(target_tokens=20, overlap_tokens=0), fmt="markdown",
                 count_tokens=huge) == by_words


def _md_policy(target, **options):
    return ChunkPolicy(target_tokens=target, overlap_tokens=0, chunker="markdown",
                       options=options)


def test_heading_prefix_puts_the_section_header_in_front_of_every_piece():
    text = ("# Book\n\n## Movement\n\n" + "\n\n".join(para(f"p{i}", 10) for i in range(4))
            + "\n\n## Shooting\n\nShort section here.\n")
    chunks = chunk(text, _md_policy(24, heading_prefix=True), fmt="markdown")
    moves = [c for c in chunks if c.metadata["section"] == "Movement"]
    assert len(moves) >= 2
    # the first piece holds the heading itself (after the title, a heading-only preamble);
    # every later one starts with it
    assert moves[0].text.startswith("# Book\n\n## Movement\n\n")
    assert all(c.text.startswith("## Movement\n\n") and c.metadata["heading_repeated"]
               for c in moves[1:])
    assert all(c.tokens <= 24 for c in chunks)  # room is kept for the header
    assert not any(set(c.text.split()) <= {"#", "##", "Book", "Movement"} for c in chunks)
    plain = chunk(text, _md_policy(24), fmt="markdown")
    assert sum("## Movement" in c.text for c in plain) == 1


def test_heading_context_off_keeps_the_path_in_metadata_only():
    text = "# Book\n\n## Part\n\nSome text here.\n\n## Other\n\nMore text here.\n"
    chunks = chunk(text, _md_policy(8, heading_context=False), fmt="markdown")
    assert chunks and all(c.context == "" for c in chunks)
    assert [c.metadata["heading_path"] for c in chunks] == ["Book > Part", "Book > Other"]
    assert [c.metadata["section"] for c in chunks] == ["Part", "Other"]


def test_structure_warnings_no_headings_and_skipped_levels():
    from ragd.chunking import chunk_warnings
    from ragd.types import Document

    flat = Document(doc_id="f", text=" ".join(["word"] * 300), format="markdown")
    assert chunk_warnings(flat, _md_policy(50)) == [
        "no headings in a document that must be split: cut between paragraphs"]
    assert chunk_warnings(flat, _md_policy(500)) == []  # it fits: nothing is ambiguous
    skipped = Document(doc_id="s", text="# A\n\ntext\n\n#### D\n\nmore\n\n## B\n", format="markdown")
    assert chunk_warnings(skipped, _md_policy(500)) == ["line 5: heading level skips from H1 to H4"]
