"""The rule-based sentence splitter: boundaries, non-boundaries, exact spans."""

from hypothesis import given, settings
from hypothesis import strategies as st

from ragd.chunking import split_sentences


def sents(text: str) -> list[str]:
    return [text[s:e] for s, e in split_sentences(text)]


def test_splits_after_terminal_punctuation_before_capital_or_digit():
    assert sents("One fish. Two fish! Red fish? 4 fish.") == [
        "One fish.", "Two fish!", "Red fish?", "4 fish."]


def test_spans_are_exact_offsets_without_surrounding_whitespace():
    text = "  First one.   Second one.\n\n  Third.  "
    spans = split_sentences(text)
    assert [text[s:e] for s, e in spans] == ["First one.", "Second one.", "Third."]
    assert spans == sorted(spans)


def test_no_split_before_lower_case_or_without_whitespace():
    assert sents("It cost 3.5 dollars. then it rose.") == ["It cost 3.5 dollars. then it rose."]
    assert sents("See example.com.Next") == ["See example.com.Next"]


def test_closing_quotes_and_brackets_stay_with_their_sentence():
    assert sents('He said "Stop." Then he left. (It was late.) "Why?" she asked.') == [
        'He said "Stop."', "Then he left.", "(It was late.)", '"Why?" she asked.']


def test_abbreviations_do_not_end_sentences():
    text = ("Dr. Smith met Mr. Jones, e.g. Every day. Use i.e. Nothing else, etc. Fine. "
            "See Fig. 3 and Sec. 4 and No. 5 vs. Team B, cf. Brown et al. The U.S. Government agrees.")
    assert sents(text) == [
        "Dr. Smith met Mr. Jones, e.g. Every day.",
        "Use i.e. Nothing else, etc. Fine.",
        "See Fig. 3 and Sec. 4 and No. 5 vs. Team B, cf. Brown et al. The U.S. Government agrees.",
    ]


def test_initials_and_decimals_do_not_end_sentences():
    assert sents("J. R. R. Tolkien wrote it. The rate was 3.5 percent. Pi is 3.14159 roughly.") == [
        "J. R. R. Tolkien wrote it.", "The rate was 3.5 percent.", "Pi is 3.14159 roughly."]


def test_section_numbers_and_enumerators_do_not_end_sentences():
    assert sents("Sec. 5. Definitions apply here. See § 736.2. General rules follow.") == [
        "Sec. 5. Definitions apply here.", "See § 736.2. General rules follow."]
    assert sents("1. Scope of this part. IV. The fourth chapter.") == [
        "1. Scope of this part.", "IV. The fourth chapter."]
    assert sents("Under 736.2(b) the rule applies. Next.") == [
        "Under 736.2(b) the rule applies.", "Next."]


def test_legal_paragraphs_are_not_cut_into_junk():
    text = ("§ 736.2 General prohibitions and determination of applicability.\n\n"
            "(a) In this part, references to the EAR are references to 15 CFR chapter VII, "
            "subchapter C. (b) The general prohibitions in § 736.2(b)(1) through (10) apply. "
            "(1) General Prohibition One applies to items subject to the EAR.")
    out = sents(text)
    assert out == [
        "§ 736.2 General prohibitions and determination of applicability.",
        "(a) In this part, references to the EAR are references to 15 CFR chapter VII, "
        "subchapter C.",
        "(b) The general prohibitions in § 736.2(b)(1) through (10) apply.",
        "(1) General Prohibition One applies to items subject to the EAR.",
    ]
    assert all(len(s) > 20 for s in out)


def test_blank_lines_list_items_table_rows_and_headings_break():
    text = ("Intro line\ncontinues here\n\nItems:\n- first item\n* second item\n"
            "1. numbered item\n| a | b |\n|---|---|\n# Heading\ntext")
    assert sents(text) == ["Intro line\ncontinues here", "Items:", "- first item",
                           "* second item", "1. numbered item", "| a | b |", "|---|---|",
                           "# Heading\ntext"]


def test_full_width_terminators_split_without_whitespace():
    assert sents("第一句。第二句！第三句？end") == ["第一句。", "第二句！", "第三句？", "end"]


def test_empty_and_whitespace_only_give_nothing():
    assert split_sentences("") == []
    assert split_sentences(" \n\t\n  ") == []


def test_deterministic():
    text = "A b. C d! E f? G h.\n\nI j. K L."
    assert split_sentences(text) == split_sentences(text)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab AZ.!?\n\t()\"'§1|-*#。é汉")), max_size=300))
def test_spans_cover_every_non_space_character_once(text):
    spans = split_sentences(text)
    covered = [False] * len(text)
    prev_end = 0
    for s, e in spans:
        assert prev_end <= s < e <= len(text)
        assert not text[s].isspace() and not text[e - 1].isspace()
        for i in range(s, e):
            covered[i] = True
        prev_end = e
    assert all(covered[i] or text[i].isspace() for i in range(len(text)))
