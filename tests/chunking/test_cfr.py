"""The CFR paragraph parser and chunker (eCFR section text -> paragraph tree -> chunks)."""

from hypothesis import given, settings
from hypothesis import strategies as st

from ragd.chunking.cfr import Paragraph, chunk_section, clean_line, parse_section, render


def tree(body: str, number: str = "764.2") -> dict[str, Paragraph]:
    """Every paragraph of a parsed body by its citation path ("(g)(1)(i)", "(b)#p0001")."""
    out: dict[str, Paragraph] = {}

    def walk(children, prefix):
        for p in children:
            out[prefix + p.label] = p
            walk(p.children, prefix + p.label)

    walk(parse_section(number, f"§ {number} Test.", body).children, "")
    return out


def lines(*items: str) -> str:
    return "\n\n".join(items)


def test_letters_then_i_after_h_is_a_letter():
    body = lines(*(f"({c}) Item {c}." for c in "abcdefghijk"))
    t = tree(body)
    assert list(t) == [f"({c})" for c in "abcdefghijk"]
    assert all(p.level == 1 for p in t.values())


def test_i_after_h_with_children_is_decided_by_what_follows():
    # (a section may start late: (h) is placed at level 1, with an issue)
    # (h)(1) then (i), (ii): roman numerals under (h)(1)
    roman = tree(lines("(h) H.", "(1) One.", "(i) First.", "(ii) Second.", "(2) Two."))
    assert list(roman) == ["(h)", "(h)(1)", "(h)(1)(i)", "(h)(1)(ii)", "(h)(2)"]
    # (h)(1) then (i), (j): the letter after (h)
    letter = tree(lines("(h) H.", "(1) One.", "(i) Letter i.", "(j) Letter j."))
    assert list(letter) == ["(h)", "(h)(1)", "(i)", "(j)"]
    # (h)(1) then (i), (1): (i) is a letter with its own (1)
    nested = tree(lines("(h) H.", "(1) One.", "(i) Letter i.", "(1) Its one."))
    assert list(nested) == ["(h)", "(h)(1)", "(i)", "(i)(1)"]


def test_v_and_x_follow_their_own_lists():
    body = lines("(u) U.", "(1) One.", "(i) i.", "(ii) ii.", "(iii) iii.", "(iv) iv.", "(v) v.",
                 "(vi) vi.", "(vii) vii.", "(viii) viii.", "(ix) ix.", "(x) x.", "(2) Two.",
                 "(v) Letter v.", "(w) W.", "(x) Letter x.")
    t = tree(body)
    romans = ["i", "ii", "iii", "iv", "v", "vi", "vii", "viii", "ix", "x"]
    assert [k for k in t if k.startswith("(u)(1)(")] == [f"(u)(1)({r})" for r in romans]
    assert ["(u)", "(v)", "(w)", "(x)"] == [k for k in t if k.count("(") == 1]
    assert t["(x)"].level == 1 and t["(u)(1)(x)"].level == 3


def test_four_levels_and_back():
    t = tree(lines("(a) A.", "(1) One.", "(i) i.", "(A) Cap A.", "(B) Cap B.", "(ii) ii.",
                   "(2) Two.", "(b) B."))
    assert list(t) == ["(a)", "(a)(1)", "(a)(1)(i)", "(a)(1)(i)(A)", "(a)(1)(i)(B)",
                       "(a)(1)(ii)", "(a)(2)", "(b)"]
    assert [t[k].level for k in t] == [1, 2, 3, 4, 4, 3, 2, 1]


def test_same_line_first_child():
    t = tree(lines("(a) _Scope_—(1) _General._ This part applies.", "(2) Second.",
                   "(b)  (1) You must report.", "(2) Sign it.", "(c)(1) No person may.",
                   "(d) —(1) —(i) Both headings lost."))
    assert t["(a)"].text == "(a) Scope—" and t["(a)(1)"].inline
    assert t["(a)(1)"].text == "(1) General. This part applies."
    assert render(t["(a)"]) == "(a) Scope—(1) General. This part applies.\n\n(2) Second."
    assert t["(b)"].text == "(b)" and render(t["(b)"]).startswith("(b) (1) You must report.")
    assert t["(c)(1)"].text == "(1) No person may."
    assert list(k for k in t if k.startswith("(d)")) == ["(d)", "(d)(1)", "(d)(1)(i)"]
    assert render(t["(d)"]) == "(d) —(1) —(i) Both headings lost."


def test_references_in_text_do_not_split():
    t = tree(lines("(a) See paragraph (b)(1) of this section and § 764.3(a)(2).",
                   "(b) Under paragraphs (a) and (c), (1) this is not a child.",
                   "Paragraph (b)(1) of this section does not start a paragraph."))
    assert list(t) == ["(a)", "(b)", "(b)#p0001"]
    assert t["(b)"].text.endswith("(1) this is not a child.")


def test_unmarked_paragraphs_number_within_their_container():
    t = tree(lines("Intro one.", "Intro two.", "(a) A.", "(1) One.", "A note after (a)(1).",
                   "(2) Two."))
    assert list(t) == ["#p0001", "#p0002", "(a)", "(a)(1)", "(a)(1)#p0001", "(a)(2)"]


def test_italic_markers_whose_text_was_lost_are_numbered():
    t = tree(lines("(a) A.", "(1) One.", "(i) i.", "(A) Cap A.", "() First italic.",
                   "() Second italic.", "(B) Cap B."))
    assert list(t)[4:7] == ["(a)(1)(i)(A)(1)", "(a)(1)(i)(A)(2)", "(a)(1)(i)(B)"]
    assert t["(a)(1)(i)(A)(2)"].text == "(2) Second italic."
    assert t["(a)(1)(i)(A)(2)"].level == 5


def test_plain_fifth_level_digits_continue_the_deepest_list():
    t = tree(lines("(a) A.", "(1) One.", "(i) i.", "(A) Cap A.", "(1) Fifth one.",
                   "(2) Fifth two.", "(B) Cap B.", "(2) Two."))
    assert "(a)(1)(i)(A)(2)" in t and t["(a)(1)(i)(A)(2)"].level == 5
    assert "(a)(2)" in t


def test_ranges_gaps_duplicates_and_issues():
    body = lines("(a) A.", "(b)-(d) [Reserved]", "(e) E.", "(g) G after a gap.", "(g) Again.",
                 "(1) One.", "(2) Two; and (3) Three run in.")
    section = parse_section("770.2", "§ 770.2 Test.", body)
    labels = [p.label for p in section.children]
    assert labels == ["(a)", "(b)", "(e)", "(g)"]
    issues = " | ".join(section.issues)
    assert "(g) after (e): skips a marker" in issues
    assert "(g) after (g): fits no level, kept as unmarked text" in issues
    assert "(3) seems run into (2)" in issues
    g = section.children[3]
    assert [p.label for p in g.children] == ["#p0001", "(1)", "(2)"]   # the repeat kept as text


def test_definitions_lists_stay_inside_their_unmarked_paragraph():
    body = lines("Term one means something.", "Term two include any of the following:",
                 "(1) First criterion;", "(2) Second criterion.", "Term three means any of:",
                 "(a) Bank;", "(b) Broker.", "Term four means another thing.")
    section = parse_section("772.1", "§ 772.1 Definitions.", body)
    texts = [p.text for p in section.children]
    assert [p.label for p in section.children] == ["#p0001", "#p0002", "#p0003", "#p0004"]
    assert texts[1].endswith("following:\n\n(1) First criterion;\n\n(2) Second criterion.")
    assert texts[2] == "Term three means any of:\n\n(a) Bank;\n\n(b) Broker."


def test_broken_line_is_joined():
    t = tree(lines("(d) The criteria are:", "(1) The item must be available to the specified",
                   "non-controlled country from a foreign source;", "(2) Quality."))
    assert t["(d)(1)"].text.endswith("specified non-controlled country from a foreign source;")
    assert "(d)(1)#p0001" not in t


def test_clean_line_drops_emphasis_but_not_urls():
    assert clean_line("  (a)  Items _not_ on the **CCL** 5A99_2_.c  ") == \
        "(a) Items not on the CCL 5A992.c"
    assert clean_line("see https://www.bis.doc.gov/a_b_c for _x_") == \
        "see https://www.bis.doc.gov/a_b_c for x"


def test_chunks_carry_citation_header_parent_and_ordinal():
    body = lines("Intro.", "(a) A.", "(b) B:", "(1) One.", "(2) Two.")
    section = parse_section("764.2", "§ 764.2   Violations.", body)
    chunks = {c.citation + (f"#{c.suffix}" if c.suffix else ""): c for c in chunk_section(section)}
    assert list(chunks) == ["764.2", "764.2#p0001", "764.2(a)", "764.2(b)", "764.2(b)(1)",
                            "764.2(b)(2)"]
    sec = chunks["764.2"]
    assert sec.kind == "section" and sec.parent is None and sec.title == "§ 764.2 Violations."
    assert sec.text == ("15 CFR 764.2\n§ 764.2 Violations.\n\nIntro.\n\n(a) A.\n\n(b) B:\n\n"
                        "(1) One.\n\n(2) Two.")
    b = chunks["764.2(b)"]
    assert (b.kind, b.parent, b.ordinal) == ("subsection", "764.2", 3)
    assert b.text == "15 CFR 764.2(b)\n§ 764.2 Violations.\n\n(b) B:\n\n(1) One.\n\n(2) Two."
    one = chunks["764.2(b)(1)"]
    assert (one.kind, one.parent, one.ordinal) == ("paragraph", "764.2(b)", 1)
    assert one.text == "15 CFR 764.2(b)(1)\n§ 764.2 Violations.\n\n(1) One."
    intro = chunks["764.2#p0001"]
    assert (intro.kind, intro.parent, intro.ordinal) == ("paragraph", "764.2", 1)
    assert intro.text == "15 CFR 764.2\n§ 764.2 Violations.\n\nIntro."


def test_a_section_of_one_unmarked_paragraph_is_one_chunk():
    only = chunk_section(parse_section("764.1", "§ 764.1 Introduction.", "Just text."))
    assert [(c.kind, c.suffix) for c in only] == [("section", "")]
    empty = chunk_section(parse_section("746.5", "§ 746.5 [Reserved]", ""))
    assert [c.text for c in empty] == ["15 CFR 746.5\n§ 746.5 [Reserved]"]


MARKERS = ["(a)", "(b)", "(c)", "(h)", "(i)", "(j)", "(1)", "(2)", "(3)", "(i)", "(ii)", "(v)",
           "(x)", "(A)", "(B)", "()", "(b)(1)", "(c) Scope—(1)", ""]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(MARKERS),
                          st.text("abc xyz;.", min_size=1, max_size=20)), max_size=25))
def test_parsing_loses_and_duplicates_nothing(items):
    body = "\n\n".join(f"{m} W{k} {t}" for k, (m, t) in enumerate(items))
    section = parse_section("764.2", "§ 764.2 Test.", body)
    chunks = chunk_section(section)
    ids = [c.citation + "#" + c.suffix for c in chunks]
    assert len(ids) == len(set(i.lower() for i in ids))
    full = chunks[0].text.split("\n\n", 1)[1] if "\n\n" in chunks[0].text else ""
    expect = [clean_line(f"{m} W{k} {t}") for k, (m, t) in enumerate(items)]
    # every word of the input, in order, once (italic "()" markers are restored as numbers)
    norm = lambda s: [w for w in s.replace("\n", " ").split() if w.startswith("W")]  # noqa: E731
    assert norm(full) == norm(" ".join(expect))
