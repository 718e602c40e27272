"""The canonical policy over plain text and timed segments, and the dispatching entry points."""


import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ragd.chunking import chunk, chunk_document, split_sentences
from ragd.embedding.tokenizer import count_tokens
from ragd.errors import InvalidDocumentError, UsageError
from ragd.types import ChunkPolicy, Document, Segment


def words(texts):
    """A predictable token counter: one token per whitespace-separated word."""
    return [len(t.split()) for t in texts]


def sentence(i: int, n: int = 4) -> str:
    return " ".join([f"S{i}"] + [f"w{i}x{k}" for k in range(1, n - 1)] + [f"end{i}."])


def policy(target=8, overlap=0, max_chars=2000, chunker="auto"):
    return ChunkPolicy(target_tokens=target, overlap_tokens=overlap, max_chars=max_chars,
                       chunker=chunker)


def test_empty_or_whitespace_input_gives_no_chunks():
    assert chunk("", policy(), count_tokens=words) == []
    assert chunk(" \n\t  \n", policy(), count_tokens=words) == []
    assert chunk([], policy(), count_tokens=words) == []
    assert chunk([Segment("  ", 0, 1)], policy(), count_tokens=words) == []


def test_whole_sentences_are_packed_greedily():
    text = " ".join(sentence(i) for i in range(5))  # 5 sentences of 4 words
    chunks = chunk(text, policy(target=8), count_tokens=words)
    assert [c.text for c in chunks] == [
        f"{sentence(0)} {sentence(1)}", f"{sentence(2)} {sentence(3)}", sentence(4)]
    assert [(c.metadata["segment_start"], c.metadata["segment_end"]) for c in chunks] == [
        (0, 1), (2, 3), (4, 4)]
    assert [c.chunk_index for c in chunks] == [0, 1, 2]
    assert [c.tokens for c in chunks] == [8, 8, 4]


def test_text_is_the_exact_stripped_source_span():
    text = "\n\n  First sentence here.   Second sentence here.  \n\n Third one here too.  \n"
    for c in chunk(text, policy(target=8), count_tokens=words):
        assert text[c.start_offset:c.end_offset] == c.text == c.text.strip()


def test_overlap_repeats_trailing_sentences_within_budget():
    text = " ".join(sentence(i) for i in range(6))
    chunks = chunk(text, policy(target=12, overlap=4), count_tokens=words)
    spans = [(c.metadata["segment_start"], c.metadata["segment_end"]) for c in chunks]
    assert spans == [(0, 2), (2, 4), (4, 5)]
    assert chunks[1].text.startswith(sentence(2))


def test_overlap_never_repeats_a_whole_chunk_and_always_advances():
    text = " ".join(sentence(i, 8) for i in range(4))  # each sentence fills a chunk
    chunks = chunk(text, policy(target=8, overlap=7), count_tokens=words)
    assert [(c.metadata["segment_start"], c.metadata["segment_end"]) for c in chunks] == [
        (0, 0), (1, 1), (2, 2), (3, 3)]
    # sizes 4, 4, 7: the overlap (4) plus the next sentence (7) would not fit, so no overlap
    text = " ".join([sentence(0), sentence(1), sentence(2, 7)])
    chunks = chunk(text, policy(target=8, overlap=4), count_tokens=words)
    assert [(c.metadata["segment_start"], c.metadata["segment_end"]) for c in chunks] == [
        (0, 1), (2, 2)]


def test_long_sentence_is_split_at_word_boundaries():
    text = "Start " + " ".join(f"word{i}" for i in range(40)) + " stop."
    chunks = chunk(text, policy(target=8), count_tokens=words)
    assert len(chunks) == 6
    assert all(c.tokens <= 8 for c in chunks)
    assert " ".join(c.text for c in chunks) == text
    assert all(c.metadata["segment_start"] == c.metadata["segment_end"] == 0 for c in chunks)


def test_huge_word_without_whitespace_is_hard_cut_to_max_chars():
    text = "Intro. " + "x" * 1000 + " outro."
    chunks = chunk(text, policy(target=8, max_chars=64), count_tokens=words)
    assert all(len(c.text) <= 64 for c in chunks)
    assert "".join("".join(c.text.split()) for c in chunks) == "Intro." + "x" * 1000 + "outro."


def test_max_chars_limits_chunks_of_few_tokens():
    text = " ".join(f"Sentence{'x' * 30}{i} done." for i in range(10))
    chunks = chunk(text, policy(target=200, max_chars=100), count_tokens=words)
    assert all(len(c.text) <= 100 for c in chunks)
    assert len(chunks) == 5


def test_chunk_fields_and_metadata_merge():
    text = "Alpha beta gamma. Delta epsilon zeta."
    [c] = chunk(text, policy(), doc_id="d1", context="My Title", tags=("a", "b"),
                metadata={"lang": "en", "segment_start": 99}, count_tokens=words)
    assert (c.doc_id, c.chunk_index, c.context, c.tags, c.kind) == ("d1", 0, "My Title",
                                                                    ("a", "b"), "chunk")
    assert dict(c.metadata) == {"lang": "en", "segment_start": 0, "segment_end": 1}
    assert (c.start_offset, c.end_offset) == (0, len(text))
    assert c.chunk_id and c.tokens == 6


def test_default_counter_is_the_embedding_tokenizer():
    text = "Tokenization uses WordPiece. Unbelievable things happen!"
    [c] = chunk(text)
    assert c.tokens == count_tokens([c.text])[0]


def test_deterministic():
    text = " ".join(sentence(i, 3 + i % 5) for i in range(50))
    a = chunk(text, policy(target=16, overlap=5), doc_id="x")
    b = chunk(text, policy(target=16, overlap=5), doc_id="x")
    assert a == b
    assert [c.chunk_id for c in a] == [c.chunk_id for c in b]


def test_segments_are_packed_whole_with_times():
    segs = [Segment(f" seg{i} one two three ", float(i), i + 0.5) for i in range(5)]
    chunks = chunk(segs, policy(target=8), count_tokens=words)
    joined = " ".join(s.text.strip() for s in segs)
    assert [c.text for c in chunks] == [
        "seg0 one two three seg1 one two three", "seg2 one two three seg3 one two three",
        "seg4 one two three"]
    for c in chunks:
        assert joined[c.start_offset:c.end_offset] == c.text
    assert [(c.metadata["segment_start"], c.metadata["segment_end"], c.metadata["t_start"],
             c.metadata["t_end"]) for c in chunks] == [
        (0, 1, 0.0, 1.5), (2, 3, 2.0, 3.5), (4, 4, 4.0, 4.5)]


def test_segment_overlap_and_dict_input():
    segs = [{"text": f"seg{i} a b c", "t_start": i, "t_end": i + 1} for i in range(4)]
    chunks = chunk(segs, policy(target=12, overlap=4), count_tokens=words)
    assert [(c.metadata["segment_start"], c.metadata["segment_end"]) for c in chunks] == [
        (0, 2), (2, 3)]


def test_long_segment_pieces_keep_its_times_and_blank_segments_keep_indices():
    segs = [Segment("short one", 0, 1), Segment("", 1, 2),
            Segment(" ".join(f"w{i}" for i in range(20)), 2, 9)]
    chunks = chunk(segs, policy(target=8), count_tokens=words)
    long_pieces = [c for c in chunks if c.metadata["segment_start"] == 2]
    assert len(long_pieces) >= 3
    assert all(c.metadata["t_start"] == 2 and c.metadata["t_end"] == 9 for c in long_pieces)
    assert all(c.tokens <= 8 for c in chunks)


def test_bad_segments_are_rejected_with_the_field():
    with pytest.raises(InvalidDocumentError, match="t_end"):
        chunk([{"text": "x", "t_start": 0}], policy(), count_tokens=words)
    with pytest.raises(InvalidDocumentError, match="not a number"):
        chunk([{"text": "x", "t_start": "0", "t_end": 1}], policy(), count_tokens=words)
    with pytest.raises(UsageError):
        chunk(["plain string"], policy(), count_tokens=words)
    with pytest.raises(UsageError):
        chunk([Segment("x", 0, 1)], policy(chunker="markdown"), count_tokens=words)
    with pytest.raises(UsageError):
        chunk("text", policy(), fmt="segments", count_tokens=words)


def test_chunk_document_uses_format_title_tags_and_metadata():
    md = "# Guide\n\n## Part\n\nSome text here."
    doc = Document(doc_id="g", text=md, title="Fallback", format="markdown", tags=("t",),
                   metadata={"src": "x"})
    [c] = chunk_document(doc, policy(target=64), count_tokens=words)
    assert (c.doc_id, c.context, c.tags, c.metadata["src"]) == ("g", "Guide", ("t",), "x")
    assert c.metadata["heading_level"] == 0

    [c] = chunk_document(Document(doc_id="t", text="Plain words here.", title="T"),
                         policy(), count_tokens=words)
    assert c.context == "T" and c.metadata["segment_end"] == 0

    seg_doc = Document(doc_id="s", format="segments", segments=(Segment("hi there", 1, 2),))
    [c] = chunk_document(seg_doc, policy(), count_tokens=words)
    assert c.metadata["t_start"] == 1 and c.text == "hi there"

    with pytest.raises(InvalidDocumentError, match="segments"):
        chunk_document(Document(doc_id="bad", format="segments", source="f.jsonl"), policy())


def test_chunker_choice():
    md = "# T\n\n## A\n\nAlpha text. More text."
    assert "heading_path" in chunk(md, policy(chunker="markdown"), count_tokens=words)[0].metadata
    assert "heading_path" in chunk(md, policy(), fmt="markdown", count_tokens=words)[0].metadata
    canon = chunk(md, policy(chunker="canonical"), fmt="markdown", count_tokens=words)
    assert "segment_start" in canon[0].metadata


def test_one_megabyte_of_text_chunks_within_limits():
    base = " ".join(sentence(i, 5 + i % 20) for i in range(200)) + "\n\n"
    text = (base * (1_000_000 // len(base) + 1))[:1_000_000]
    chunks = chunk(text)
    assert chunks and all(c.tokens <= 200 and len(c.text) <= 2000 for c in chunks)
    assert [c.chunk_index for c in chunks] == list(range(len(chunks)))
    assert chunks[-1].end_offset == len(text.rstrip())


_ALPHABET = st.sampled_from(list("abcXYZ .!?\n\t\u00a0éß汉字。😀|-#(§1"))
_TEXT = st.lists(st.one_of(st.text(_ALPHABET, max_size=40),
                           st.builds(lambda c, n: c * n, st.sampled_from(["x", "汉", "ab ", "é"]),
                                     st.integers(50, 900)),
                           st.text(max_size=30)), max_size=12).map("".join)


@settings(max_examples=120, deadline=None)
@given(text=_TEXT, target=st.integers(8, 64), overlap_frac=st.floats(0, 0.9),
       max_chars=st.integers(64, 400))
def test_property_limits_offsets_and_coverage(text, target, overlap_frac, max_chars):
    pol = policy(target=target, overlap=int(target * overlap_frac), max_chars=max_chars)
    chunks = chunk(text, pol, doc_id="p")
    assert chunks == chunk(text, pol, doc_id="p")
    covered = [False] * len(text)
    prev = None
    for i, c in enumerate(chunks):
        assert c.chunk_index == i
        assert 0 < len(c.text) <= max_chars
        assert c.tokens <= target
        assert text[c.start_offset:c.end_offset] == c.text == c.text.strip()
        if prev is not None:
            assert c.start_offset > prev.start_offset and c.end_offset > prev.end_offset
            assert c.metadata["segment_start"] >= prev.metadata["segment_start"]
        for k in range(c.start_offset, c.end_offset):
            covered[k] = True
        prev = c
    assert all(covered[k] or text[k].isspace() for k in range(len(text)))
    assert (not chunks) == (not split_sentences(text))


@settings(max_examples=60, deadline=None)
@given(texts=st.lists(_TEXT, max_size=8), target=st.integers(8, 64),
       max_chars=st.integers(64, 300))
def test_property_segments(texts, target, max_chars):
    segs = [Segment(t, float(i), i + 0.5) for i, t in enumerate(texts)]
    joined = " ".join(t.strip() for t in texts if t.strip())
    chunks = chunk(segs, policy(target=target, overlap=target // 4, max_chars=max_chars))
    assert (not chunks) == (not joined)
    for c in chunks:
        assert 0 < len(c.text) <= max_chars and c.tokens <= target
        assert joined[c.start_offset:c.end_offset] == c.text
        first, last = c.metadata["segment_start"], c.metadata["segment_end"]
        assert first <= last
        assert (c.metadata["t_start"], c.metadata["t_end"]) == (float(first), last + 0.5)
