"""The canonical policy (words, paragraph and segment units, tail-word overlap) and the
dispatching entry points."""

import json
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ragd
from ragd.chunking import chunk, chunk_document
from ragd.chunking.canonical import paragraph_spans
from ragd.errors import InvalidDocumentError, UsageError
from ragd.types import ChunkPolicy, Document, Segment


def policy(target=8, overlap=0, max_chars=2000, chunker="auto", max_unit=240):
    return ChunkPolicy(target_tokens=target, overlap_tokens=overlap, max_chars=max_chars,
                       chunker=chunker, max_unit_tokens=max_unit)


def para(i: int, n: int = 4) -> str:
    """A paragraph of ``n`` distinct words."""
    return " ".join([f"P{i}"] + [f"w{i}x{k}" for k in range(1, n - 1)] + [f"end{i}."])


def spans(chunks):
    return [(c.metadata["segment_start"], c.metadata["segment_end"]) for c in chunks]


def own_words(c):
    """The words a chunk adds (without the overlap carried from the chunk before)."""
    return c.text.split()[c.metadata["overlap_words"]:]


def test_the_issue_example_now_chunks():
    [c] = ragd.chunk("Cats are small mammals. Dogs are loyal animals.",
                     ragd.ChunkPolicy(target_tokens=8, overlap_tokens=2, max_chars=60))
    assert c.text == "Cats are small mammals. Dogs are loyal animals." and c.tokens == 8


@pytest.mark.parametrize("kwargs, message", [
    ({"target_tokens": 0}, "target_tokens must be >= 1"),
    ({"overlap_tokens": -1}, "overlap_tokens must be >= 0"),
    ({"target_tokens": 4, "overlap_tokens": 4}, "overlap_tokens must be < target_tokens"),
    ({"max_chars": 0}, "max_chars must be >= 1"),
    ({"max_unit_tokens": 0}, "max_unit_tokens must be >= 1"),
    ({"target_tokens": 8.5}, "target_tokens must be an integer"),
    ({"max_chars": True}, "max_chars must be an integer"),
    ({"counter": "chars"}, "unknown counter 'chars'"),
    ({"chunker": "canonical", "counter": "model"}, "canonical policy counts words"),
])
def test_policy_limits_and_types(kwargs, message):
    with pytest.raises(UsageError, match=message):
        ChunkPolicy(**kwargs)


def test_any_positive_policy_is_valid():
    for target in range(1, 12):
        for overlap in range(0, target):
            ChunkPolicy(target_tokens=target, overlap_tokens=overlap, max_chars=1)
    assert ChunkPolicy(max_chars=None).char_limit == sys.maxsize


def test_empty_or_whitespace_input_gives_no_chunks():
    assert chunk("", policy()) == []
    assert chunk(" \n\t  \n\n  ", policy()) == []
    assert chunk([], policy()) == []
    assert chunk([Segment("  ", 0, 1)], policy()) == []


def test_paragraphs_are_units_packed_greedily_and_joined_by_one_space():
    text = "\n\n".join(para(i) for i in range(5))  # 5 paragraphs of 4 words
    chunks = chunk(text, policy(target=8))
    assert [c.text for c in chunks] == [
        f"{para(0)} {para(1)}", f"{para(2)} {para(3)}", para(4)]
    assert spans(chunks) == [(0, 1), (2, 3), (4, 4)]
    assert [c.chunk_index for c in chunks] == [0, 1, 2]
    assert [c.tokens for c in chunks] == [8, 8, 4]
    assert (chunks[1].start_offset, chunks[1].end_offset) == (
        text.index(para(2)), text.index(para(3)) + len(para(3)))


def test_paragraph_split_on_blank_lines_only():
    text = "one\ntwo\n\n  \t\nthree\r\n\r\nfour"
    assert [text[s:e] for s, e in paragraph_spans(text)] == ["one\ntwo", "three", "four"]


def test_a_unit_over_the_target_stands_alone_and_is_never_cut_below_max_unit_tokens():
    text = "\n\n".join([para(0, 3), para(1, 12), para(2, 3)])
    chunks = chunk(text, policy(target=8))
    assert [c.text for c in chunks] == [para(0, 3), para(1, 12), para(2, 3)]


def test_a_long_paragraph_is_cut_into_sentences():
    sentences = [f"Sentence {i} has five words." for i in range(6)]  # 5 words each
    text = " ".join(sentences)
    chunks = chunk(text, policy(target=10, max_unit=12))
    assert [c.text for c in chunks] == [" ".join(sentences[k:k + 2]) for k in (0, 2, 4)]
    assert spans(chunks) == [(0, 1), (2, 3), (4, 5)]
    # the same paragraph under the default max_unit_tokens is one unit
    assert [c.text for c in chunk(text, policy(target=10))] == [text]


def test_a_sentence_over_max_unit_tokens_is_cut_at_word_boundaries():
    text = " ".join(f"w{i}" for i in range(23))
    chunks = chunk(text, policy(target=5, max_unit=5))
    assert [c.tokens for c in chunks] == [5, 5, 5, 5, 3]
    assert " ".join(c.text for c in chunks) == text
    assert spans(chunks) == [(0, 0)] * 5  # pieces keep their unit's index


def test_overlap_is_the_tail_words_of_the_previous_chunk():
    text = "\n\n".join(para(i, 5) for i in range(4))
    chunks = chunk(text, policy(target=10, overlap=3))
    # the overlap counts towards the target: 3 + 5 + 5 > 10, so later chunks take one paragraph
    assert spans(chunks) == [(0, 1), (2, 2), (3, 3)]
    assert [c.metadata["overlap_words"] for c in chunks] == [0, 3, 3]
    assert chunks[1].text == f"{' '.join(para(1, 5).split()[-3:])} {para(2, 5)}"
    for prev, c in zip(chunks, chunks[1:]):
        assert c.text.split()[:3] == prev.text.split()[-3:]
    # offsets span the source from the first overlap word to the end of the last unit
    assert text[chunks[1].start_offset:chunks[1].end_offset].split() == chunks[1].text.split()


def test_overlap_spans_into_the_previous_overlap_when_a_chunk_is_short():
    text = "\n\n".join(["a b c d e f", "g", "h i j k l m", "n"])
    chunks = chunk(text, policy(target=6, overlap=3))
    assert [c.text for c in chunks] == ["a b c d e f", "d e f g", "e f g h i j k l m", "k l m n"]


def test_overlap_is_trimmed_from_the_front_to_fit_max_chars():
    text = "alpha bravo charlie\n\nfoxtrot-golf-hotel"  # 19 + 18 characters
    chunks = chunk(text, policy(target=3, overlap=2, max_chars=31))
    assert [c.text for c in chunks] == ["alpha bravo charlie", "charlie foxtrot-golf-hotel"]
    assert chunks[1].metadata["overlap_words"] == 1
    chunks = chunk(text, policy(target=3, overlap=2, max_chars=20))
    assert chunks[1].text == "foxtrot-golf-hotel" and chunks[1].metadata["overlap_words"] == 0


def test_max_chars_cuts_units_at_word_boundaries_and_huge_words_into_slices():
    text = "Intro here.\n\n" + "x" * 100 + " outro."
    chunks = chunk(text, policy(target=8, max_chars=30))
    assert all(len(c.text) <= 30 for c in chunks)
    assert "".join("".join(own_words(c)) for c in chunks) == "".join(text.split())
    assert [c.text for c in chunks][1:4] == ["x" * 30] * 3


def test_no_max_chars():
    text = "word " * 500
    [c] = chunk(text, policy(target=600, max_chars=None, max_unit=600))
    assert c.tokens == 500 and len(c.text) == len(text.strip())


def test_chunk_fields_and_metadata_merge():
    text = "Alpha beta gamma. Delta epsilon zeta."
    [c] = chunk(text, policy(), doc_id="d1", context="My Title", tags=("a", "b"),
                metadata={"lang": "en", "segment_start": 99})
    assert (c.doc_id, c.chunk_index, c.context, c.tags, c.kind) == ("d1", 0, "My Title",
                                                                    ("a", "b"), "chunk")
    assert dict(c.metadata) == {"lang": "en", "segment_start": 0, "segment_end": 0,
                                "overlap_words": 0}
    assert (c.start_offset, c.end_offset) == (0, len(text))
    assert c.chunk_id and c.tokens == 6


def test_tokens_are_words_whatever_the_embedder():
    text = "Tokenization uses WordPiece. Unbelievable things happen!"
    [c] = chunk(text)
    assert c.tokens == 6
    assert chunk(text, count_tokens=lambda texts: [1000 for _ in texts]) == chunk(text)


def test_segments_are_units_with_times():
    segs = [Segment(f" seg{i} one two three ", float(i), i + 0.5) for i in range(5)]
    chunks = chunk(segs, policy(target=8))
    joined = " ".join(s.text.strip() for s in segs)
    assert [c.text for c in chunks] == [
        "seg0 one two three seg1 one two three", "seg2 one two three seg3 one two three",
        "seg4 one two three"]
    for c in chunks:
        assert joined[c.start_offset:c.end_offset] == c.text
    assert [(c.metadata["segment_start"], c.metadata["segment_end"], c.metadata["t_start"],
             c.metadata["t_end"]) for c in chunks] == [
        (0, 1, 0.0, 1.5), (2, 3, 2.0, 3.5), (4, 4, 4.0, 4.5)]


def test_segment_overlap_carries_no_segment_and_dict_input():
    segs = [{"text": f"seg{i} a b c", "t_start": i, "t_end": i + 1} for i in range(4)]
    chunks = chunk(segs, policy(target=8, overlap=2))
    assert [c.text for c in chunks] == ["seg0 a b c seg1 a b c", "b c seg2 a b c",
                                        "b c seg3 a b c"]
    assert spans(chunks) == [(0, 1), (2, 2), (3, 3)]
    assert [c.metadata["t_start"] for c in chunks] == [0, 2, 3]


def test_long_segment_pieces_keep_its_times_and_blank_segments_keep_indices():
    segs = [Segment("short one", 0, 1), Segment("", 1, 2),
            Segment(" ".join(f"w{i}" for i in range(20)), 2, 9)]
    chunks = chunk(segs, policy(target=8, max_unit=8))
    long_pieces = [c for c in chunks if c.metadata["segment_start"] == 2]
    assert len(long_pieces) == 3
    assert all(c.metadata["t_start"] == 2 and c.metadata["t_end"] == 9 for c in long_pieces)


def test_bad_segments_are_rejected_with_the_field():
    with pytest.raises(InvalidDocumentError, match="t_end"):
        chunk([{"text": "x", "t_start": 0}], policy())
    with pytest.raises(InvalidDocumentError, match="not a number"):
        chunk([{"text": "x", "t_start": "0", "t_end": 1}], policy())
    with pytest.raises(UsageError):
        chunk(["plain string"], policy())
    with pytest.raises(UsageError):
        chunk([Segment("x", 0, 1)], policy(chunker="markdown"))
    with pytest.raises(UsageError):
        chunk("text", policy(), fmt="segments")


def test_chunk_document_uses_format_title_tags_and_metadata():
    md = "# Guide\n\n## Part\n\nSome text here."
    doc = Document(doc_id="g", text=md, title="Fallback", format="markdown", tags=("t",),
                   metadata={"src": "x"})
    [c] = chunk_document(doc, policy(target=64))
    assert (c.doc_id, c.context, c.tags, c.metadata["src"]) == ("g", "Guide", ("t",), "x")
    assert c.metadata["heading_level"] == 0

    [c] = chunk_document(Document(doc_id="t", text="Plain words here.", title="T"), policy())
    assert c.context == "T" and c.metadata["segment_end"] == 0

    seg_doc = Document(doc_id="s", format="segments", segments=(Segment("hi there", 1, 2),))
    [c] = chunk_document(seg_doc, policy())
    assert c.metadata["t_start"] == 1 and c.text == "hi there"

    [c] = chunk_document(Document(doc_id="p", text="Three words here", format="prechunked"))
    assert c.tokens == 3

    with pytest.raises(InvalidDocumentError, match="segments"):
        chunk_document(Document(doc_id="bad", format="segments", source="f.jsonl"), policy())


def test_chunker_choice():
    md = "# T\n\n## A\n\nAlpha text. More text."
    assert "heading_path" in chunk(md, policy(chunker="markdown"))[0].metadata
    assert "heading_path" in chunk(md, policy(), fmt="markdown")[0].metadata
    canon = chunk(md, policy(chunker="canonical"), fmt="markdown")
    assert "segment_start" in canon[0].metadata


def test_one_megabyte_of_text_chunks_within_limits():
    base = "\n\n".join(para(i, 5 + i % 300) for i in range(60)) + "\n\n"
    text = (base * (1_000_000 // len(base) + 1))[:1_000_000]
    pol = ChunkPolicy()
    chunks = chunk(text, pol)
    assert chunks and all(len(c.text) <= 2000 for c in chunks)
    assert all(len(own_words(c)) <= max(pol.target_tokens, pol.max_unit_tokens) for c in chunks)
    assert [c.chunk_index for c in chunks] == list(range(len(chunks)))
    assert chunks[-1].end_offset == len(text.rstrip())


def test_same_chunks_in_another_process():
    text = "\n\n".join(para(i, 3 + i % 17) for i in range(40))
    script = ("import json, sys, ragd; p = ragd.ChunkPolicy(target_tokens=9, overlap_tokens=3, "
              "max_chars=70, max_unit_tokens=12); print(json.dumps([[c.chunk_id, c.text, "
              "c.start_offset, c.end_offset] for c in ragd.chunk(sys.stdin.read(), p)]))")
    there = subprocess.run([sys.executable, "-c", script], input=text, capture_output=True,
                           text=True, check=True, env={"PYTHONHASHSEED": "123"})
    here = [[c.chunk_id, c.text, c.start_offset, c.end_offset]
            for c in chunk(text, ChunkPolicy(target_tokens=9, overlap_tokens=3, max_chars=70,
                                             max_unit_tokens=12))]
    assert json.loads(there.stdout) == here


_ALPHABET = st.sampled_from(list("abcXYZ .!?\n\t\u00a0éß汉字。😀|-#(§1"))
_TEXT = st.lists(st.one_of(st.text(_ALPHABET, max_size=40),
                           st.sampled_from(["\n\n", " \n \n", ". ", "\n"]),
                           st.builds(lambda c, n: c * n, st.sampled_from(["x", "汉", "ab ", "é. "]),
                                     st.integers(20, 400)),
                           st.text(max_size=30)), max_size=14).map("".join)
_POLICY = st.builds(
    lambda target, frac, chars, unit: ChunkPolicy(
        target_tokens=target, overlap_tokens=int((target - 1) * frac), max_chars=chars,
        max_unit_tokens=unit, chunker="canonical"),
    st.integers(1, 40), st.floats(0, 1), st.one_of(st.none(), st.integers(1, 300)),
    st.integers(1, 60))


def _check_chunks(chunks, source: str, pol: ChunkPolicy) -> None:
    """The properties every canonical chunk list holds over its source text."""
    limit = pol.char_limit
    long_word = any(len(w) > limit for w in source.split())
    for i, c in enumerate(chunks):
        assert c.chunk_index == i and c.tokens == len(c.text.split())
        assert 0 < len(c.text) <= limit  # never over max_chars
        ov = c.metadata["overlap_words"]
        assert 0 <= ov <= pol.overlap_tokens
        assert 1 <= len(own_words(c)) <= max(pol.target_tokens, pol.max_unit_tokens)
        if i:  # the overlap is the previous chunk's tail
            prev = chunks[i - 1]
            assert c.text.split()[:ov] == prev.text.split()[len(prev.text.split()) - ov:]
            assert c.metadata["segment_start"] >= prev.metadata["segment_end"]
        else:
            assert ov == 0
        if not long_word:
            assert source[c.start_offset:c.end_offset].split() == c.text.split()
    # every word of the input, in order, once (overlaps aside)
    mine = [w for c in chunks for w in own_words(c)]
    if long_word:
        assert "".join(mine) == "".join(source.split())
    else:
        assert mine == source.split()


@settings(max_examples=150, deadline=None)
@given(text=_TEXT, pol=_POLICY)
def test_property_text(text, pol):
    chunks = chunk(text, pol, doc_id="p")
    assert chunks == chunk(text, pol, doc_id="p")  # a pure function
    _check_chunks(chunks, text, pol)
    assert (not chunks) == (not text.split())


@settings(max_examples=80, deadline=None)
@given(texts=st.lists(_TEXT, max_size=8), pol=_POLICY)
def test_property_segments(texts, pol):
    segs = [Segment(t, float(i), i + 0.5) for i, t in enumerate(texts)]
    joined = " ".join(t.strip() for t in texts if t.strip())
    chunks = chunk(segs, pol)
    assert chunks == chunk(segs, pol)
    _check_chunks(chunks, joined, pol)
    for c in chunks:
        first, last = c.metadata["segment_start"], c.metadata["segment_end"]
        assert first <= last and texts[first].strip() and texts[last].strip()
        assert (c.metadata["t_start"], c.metadata["t_end"]) == (float(first), last + 0.5)
