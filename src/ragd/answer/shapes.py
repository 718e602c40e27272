"""The shape of a sentence of evidence: a definition, a heading, or the tail of a cut one.

Pure functions over one sentence's text (and the analysed terms of its passage's labels),
used by the extractive path to tell a statement that can answer from the text around it.
"""

from __future__ import annotations

import itertools
import re
from typing import Sequence

from ..analysis import analyze


_CONTINUES = re.compile(r"^\s*(?:[,;:)\]]|\d[\d.]*\s*,\s)")


def fragment(sentence: str) -> bool:
    """The tail of a sentence cut by a passage boundary: it starts in lower case, with
    punctuation that closes or continues a clause, or with a number followed by a comma
    ("20, 1997, as amended at ..." — the rest of a date or a list)."""
    first = sentence.lstrip()[:1]
    return (first.isalpha() and first.islower()) or bool(_CONTINUES.match(sentence))


_DEFINES = re.compile(r"^\s*(?:\(?[a-z0-9]{1,4}[.)]\s*)?"
                      r"(?:for\s+(?:the\s+)?purposes?\s+of\s+[^,]{1,80},\s*)?"
                      r"(?:the\s+(?:terms?|expressions?|words?)\s+)?"
                      r"(?P<head>.{0,120}?)\s*(?:\([^)]{1,20}\)\s*)?"
                      r"(?P<verb>(?<![^\W\d_])(?:means|shall\s+mean|is\s+defined\s+as|refers\s+to|"
                      r"includes|include|is|are|involves|consists\s+of|comprises)|:|–|—|-)\s",
                      re.I)
# verbs that define only when the term asked about opens the sentence, nearly alone
# ("CM involves the continuous feeding of ...": what continuous manufacturing is)
_WEAK = frozenset({"includes", "include", "is", "are", "involves", "consists of", "comprises",
                   "-"})
_DASHES = frozenset({"-", "–", "—"})
# what follows a dash in a heading: words in title case ("General Points"), not a definition
# ("An evaluation, conducted ...", "the multidimensional combination ...")
_TITLED = re.compile(r"\s*(?!(?:A|An|The)\b)[A-Z][a-z]+\s+[A-Z][a-z]+\b")


_LEAD_IN = re.compile(r":\s+(?=[A-Z])")
LEAD_INS = 2             # clauses after a colon tried as a definition's start


# a remark in parentheses, longer than an abbreviation or a label: "Raw data (synonymous
# with 'source data' which is defined in ICH GCP) Raw data is defined as ..."
_ASIDE = re.compile(r"\s*\([^()]{21,160}\)")


def _past_aside(sentence: str) -> str:
    """The sentence read without its remarks in parentheses, when so read it opens with a
    plain definition ("X means", "X is defined as", "X refers to": the remark's own "is
    defined in" defines nothing), else ""; a weak "X is ..." or a term alone, once its
    remark is gone, is no definition ("Audit trail (see also section 9 ...).")."""
    plain = " ".join(sentence.split())
    bare = _ASIDE.sub("", plain)
    return bare if bare != plain and _MEANS.match(bare) else ""


def clauses(sentence: str) -> list[str]:
    """The sentence, then what follows each of its first colons that open a capitalised
    clause: a definition introduced by a lead-in ("Samples may therefore fall into two
    categories: Reference sample: a sample of ..." -> "Reference sample: a sample of ...").
    Runs of white space are read as one space (a PDF's text keeps them), which also keeps
    the definition patterns, whose parts may each match white space, linear."""
    sentence = " ".join(sentence.split())
    return [sentence] + [sentence[m.end():] for m in
                         itertools.islice(_LEAD_IN.finditer(sentence), LEAD_INS)]


def defines(sentence: str, subject: Sequence[str]) -> bool:
    """Whether a sentence reads as a definition of ``subject`` ("Electronic signature means
    ...", "(7) Electronic signature means ...", "Design space: The multidimensional ...",
    "For purposes of this document, the term OOS results includes ...", or a glossary entry
    whose term stands in capitals before its definition: "QUALITY RISK MANAGEMENT (QRM) A
    systematic process for ...", or a glossary's term standing alone as a sentence before
    the one defining it: "Data integrity risk assessment (DIRA).", or one in lower case
    before a full stop: "reprocessing. Subjecting ..."), at its start or after a
    lead-in ending in a colon (:func:`clauses`); a plain definition defines the abbreviation
    its term carries too ("Residence Time Distribution (RTD): ..." defines RTD). With a weak verb ("is", "are", "includes",
    "involves", "consists of", "comprises", a dash) the subject must open the sentence
    nearly alone ("CM involves the continuous feeding of ...")."""
    bare = _past_aside(sentence)
    return bool(subject) and (any(_defines(clause, subject) for clause in clauses(sentence))
                              or defined_abbreviation(sentence) == list(subject)
                              or bool(bare) and _defines(bare, subject))


def _defines(sentence: str, subject: Sequence[str]) -> bool:
    wanted = set(subject)
    m = _DEFINES.match(sentence)
    if m and m.group("verb") in _DASHES and _TITLED.match(sentence, m.end()):
        m = None                 # "Retention Samples – General Points 8.1 ...": a heading
    if m:
        echoed = _ABBR_ECHO.match(m.group("head"))
        if echoed:               # "ESTABLISHED CONDITIONS (ECs) ECs are ...": the term, or
            return any(analyze(echoed.group(g)) == list(subject)    # its abbreviation
                       for g in ("term", "abbr"))
        head = analyze(m.group("head"))
        if re.sub(r"\s+", " ", m.group("verb").lower()) in _WEAK:
            # "X is ...", "X includes ...": X itself opens it ("OOS results include ...",
            # not "The rationales for the ECs are ..." nor "... if the design space is")
            if head and set(head[:len(subject)]) == wanted and len(head) <= len(subject) + 1:
                return True
        elif head and wanted <= set(head) and len(head) <= len(subject) + 4:
            return True
    head = analyze(_caps_head(sentence))     # a glossary's term is the term, nearly alone
    if head and wanted <= set(head) and len(head) <= len(subject) + 1:
        return True
    m = _LOWER_HEAD.match(sentence)          # "sampling Operations designed to ..."
    if m and set(analyze(m.group("head"))) == wanted:
        return True
    m = _TERM_ALONE.match(sentence)          # "Data integrity risk assessment (DIRA)." and
    if m and set(analyze(m.group("head"))) == wanted:            # ... defined next
        return True
    m = _TERM_DOT.match(sentence)            # "reprocessing. Subjecting all or part ..."
    return bool(m) and set(analyze(m.group("head"))) == wanted


# a glossary entry whose term stands in lower case, a full stop after it, before a
# definition opening in capitals: "reprocessing. Subjecting all or part of a batch ..."
# (WHO's glossaries; the sentence splitter gives the term to the definition it opens)
_TERM_DOT = re.compile(r"^\s*(?P<head>[a-z][a-z/-]*(?:\s+[a-z][a-z/-]*){0,4})\.\s+(?=[A-Z])")


# a glossary entry whose term stands in lower case, no mark after it, before a definition
# opening in capitals: "sampling Operations designed to obtain a representative portion
# ...", "quality system An appropriate infrastructure ..." (WHO's glossaries); no sentence
# opens so otherwise (a passage's cut-off head runs on in lower case)
_LOWER_HEAD = re.compile(r"^\s*(?P<head>[a-z][a-z/-]*(?:\s+[a-z][a-z/-]*){0,3})\s+"
                         r"(?=(?:[A-Z][a-z]+)\s+[a-z])")


# a glossary entry's term and abbreviation, the definition opening with the abbreviation:
# "ESTABLISHED CONDITIONS (ECs) ECs are legally binding information ..."
_ABBR_ECHO = re.compile(r"^\s*(?P<term>[^()]{1,80}?)\s*\(\s*(?P<abbr>[A-Za-z][\w-]{0,15})\s*\)\s*"
                        r"(?P=abbr)\s*$", re.I)


# a glossary entry's term standing alone as a sentence, its definition the next one:
# "Data integrity risk assessment (DIRA). The process to map out procedures, ..."
_TERM_ALONE = re.compile(r"^\s*(?:\(?[a-z0-9]{1,4}[.)]\s*)?(?P<head>[^\W\d_][^\W_]*(?:[ /-]+[^\W_]+){0,5})"
                         r"\s*(?:\([^)]{1,20}\))?\s*[.:]?\s*$")


_MEANS = re.compile(r"^\s*(?:\(?[a-z0-9]{1,4}[.)]\s*)?(?:the\s+(?:terms?|expressions?)\s+)?"
                    r"(?P<head>[^,;:.()]{1,60}?)\s*(?:\([^)]{1,20}\)\s*)?"
                    r"(?<![^\W\d_])(?:means|shall\s+mean|is\s+defined\s+as|refers\s+to)\s",
                    re.I)
TERM_WORDS = 5           # a defined term is short: "(5) Digital signature means ..."


def defined_term(sentence: str) -> list[str]:
    """The analysed terms of the term a sentence defines, when it is plainly a definition
    ("(5) Digital signature means ...", "Batch refers to ...", a glossary entry whose term
    stands in capitals, "REFERENCE SAMPLE A sample ...", or in title case before a colon,
    "Design Space: The multidimensional ..."), at its start or after a lead-in ending in a
    colon (:func:`clauses`), else []. Stricter than :func:`defines`, which is asked about
    one subject: this one names what is defined."""
    for clause in clauses(sentence):
        term = _defined_term(clause)
        if term:
            return term
    bare = _past_aside(sentence)
    return _defined_term(bare) if bare else []


# a numbered glossary heading that is the term, the term then opening its definition:
# "6.3. Metadata Metadata are data that describe ...", "6.4. Data Integrity Data integrity is ..."
_ECHO = re.compile(r"^\s*(?:\d{1,2}(?:\.\d{1,3})+\.?|\d{1,2}\.)\s+"
                   r"(?P<head>[^\W\d_][\w/-]*(?:\s[\w/-]+){0,4}?)\s(?P=head)\s+"
                   r"(?:is|are|means|refers\s+to)\s", re.I)


# a plain definition's term carrying its abbreviation: "Residence Time Distribution (RTD): A
# measure ...", "(4) Quality risk management (QRM) means ...", "QUALITY RISK MANAGEMENT (QRM) A ..."
_HEAD_ABBR = re.compile(r"^\s*(?:\(?[a-z0-9]{1,4}[.)]\s*)?[^():]{1,80}?\(\s*(?P<abbr>[A-Z][A-Za-z0-9-]{0,15})"
                        r"\s*\)\s*(?::|means\b|shall\s+mean\b|is\s+defined\s+as\b|refers\s+to\b|[A-Z])")


def defined_abbreviation(sentence: str) -> list[str]:
    """The analysed abbreviation a plain definition gives its term ("Residence Time
    Distribution (RTD): A measure of ..." → ["rtd"]): the definition defines it too, for a
    question asking "what is RTD?", else []."""
    for clause in clauses(sentence):
        if _defined_term(clause):
            m = _HEAD_ABBR.match(clause)
            return analyze(m.group("abbr")) if m else []
    return []


def _defined_term(sentence: str) -> list[str]:
    for form in (_MEANS, _ENTRY, _ECHO, _LOWER_HEAD):
        m = form.match(sentence)
        if m:
            head = analyze(m.group("head") or m.groupdict().get("lower") or "")
            if 0 < len(head) <= TERM_WORDS:
                return head
    head = analyze(_caps_head(sentence))
    return head if len(head) <= TERM_WORDS else []


_DESCRIBES = re.compile(r"^\s*(?:\(?[a-z0-9]{1,4}[.)]\s*)?(?P<head>[^,;:.()]{1,60}?)\s*"
                        r"(?:\([^)]{1,20}\)\s*)?(?<![^\W\d_])(?:involves|consists\s+of|comprises)\s",
                        re.I)


def described_term(sentence: str) -> list[str]:
    """The analysed terms of the term a sentence opens by saying what it consists of ("CM
    involves the continuous feeding of ...", "The reserve sample consists of ..."), at its
    start or after a colon's lead-in, else []: a description that serves as a definition
    where a document gives no other, weaker than :func:`defined_term`."""
    for clause in clauses(sentence):
        m = _DESCRIBES.match(clause)
        if m:
            head = analyze(m.group("head"))
            if 0 < len(head) <= TERM_WORDS:
                return head
    return []


# a glossary entry whose term stands in title case before a colon: "Design Space: The ..."
# (its parenthesis an abbreviation, one word: "(CQA)", not a note: "ECs (refer to Chapter 3):")
_ENTRY = re.compile(r"^\s*(?P<head>(?:[A-Z][\w/-]*\s+){0,4}[A-Z][\w/-]*)\s*(?:\([^)\s]{1,20}\)\s*)?"
                    r":\s+(?=[A-Z(])"
                    # or in sentence case, the definition in lower case: "Retention sample: a ..."
                    r"|^\s*(?P<lower>[A-Z][a-z/-]+(?:\s+[a-z][\w/-]*){0,4})\s*(?:\([^)\s]{1,20}\)\s*)?"
                    r":\s+(?=(?:a|an|the)\s)")


def _caps_head(sentence: str) -> str:
    """A glossary entry's term standing in capitals before its definition, its abbreviation
    dropped ("QUALITY RISK MANAGEMENT (QRM) A systematic ..." → "QUALITY RISK MANAGEMENT"),
    else ""."""
    cut = lead(sentence)
    if cut and _caps(sentence[:cut].split()[0]):
        return re.sub(r"\([^)]*\)\s*$", "", sentence[:cut].strip())
    return ""


_NUMBERED = re.compile(r"^\s*(?:\d{1,2}(?:\.\d{1,3})+\.?|\d{1,2}\.|[IVX]{1,4}\.)\s+(?=\S)")
# closed-class words a statement may open with, and words a heading does not end on
_OPENERS = frozenset(
    "the this these those that a an each every all any some such it its there in if when "
    "where whenever for to as on at by once after before during under with without although "
    "while unless".split())
_SMALL = frozenset("a an and as at by for from in of on or the to with".split())


def _caps(token: str) -> bool:
    """A word in capitals ("GUIDELINE", "Q9(R1)"): letters, none of them lower case."""
    return sum(ch.isalpha() for ch in token) >= 2 and not any(ch.islower() for ch in token)


def _opens(token: str) -> bool:
    """A word in sentence case: a capital, then lower case ("This", "Quality")."""
    return len(token) >= 2 and token[0].isupper() and token[1:].replace("-", "").isalpha() \
        and token[1:].islower()


_TERM_ABBR = re.compile(r"^\s*[^\W\d_][^()]{0,60}\s\(\s*[A-Za-z][A-Za-z0-9+&/-]{1,9}\s*\)\s*$")


def glossary(head: str) -> bool:
    """Whether a heading cut off a statement is a glossary entry's term: a few words with
    their abbreviation ("QUALITY RISK MANAGEMENT (QRM)"), which the definition needs."""
    return bool(_TERM_ABBR.match(head)) and len(head.split()) <= 8


def lead(sentence: str) -> int:
    """Where the statement starts when a heading is glued before it, else 0.

    The PDF text of a page runs a heading into the paragraph under it: a run of words in
    capitals (three, or two long ones: "PRODUCT QUALITY This section ...", "ICH HARMONISED
    GUIDELINE QUALITY RISK MANAGEMENT Q9(R1) Draft version ..."), or a numbered heading in
    title case ("3.2 Pharmaceutical Quality System Elements The elements described below
    ...", "1.6.2 Quality Risk Management Quality risk management is ..."). The statement
    starts at the first word in sentence case that opens it: one followed by a word in lower
    case, after a heading word that is not a small word ("Elements of the PQS are ..."
    stays whole). The rest must still be a statement of four words or more."""
    tokens = [(m.start(), m.group()) for m in re.finditer(r"\S+", sentence)]
    return _capitals_lead(tokens) or _numbered_lead(sentence, tokens)


def _capitals_lead(tokens: Sequence[tuple[int, str]]) -> int:
    """Where the statement starts after a run of words in capitals, else 0."""
    cut = 0
    caps: list[int] = []                            # letters of each long word in capitals
    for _, word in tokens:
        if any(ch.islower() for ch in word):
            break
        letters = sum(ch.isalpha() for ch in word)
        if _caps(word) and letters >= 3:
            caps.append(letters)
        cut += 1
    if 0 < cut < len(tokens) and tokens[cut - 1][1] in ("A", "I") and tokens[cut][1][:1].islower():
        cut -= 1                                    # "... MANAGEMENT A systematic process"
    if (len(caps) >= 3 or (len(caps) == 2 and sum(caps) >= 10)) and cut < len(tokens) \
            and (_opens(tokens[cut][1]) or tokens[cut][1] in ("A", "I")):
        return tokens[cut][0] if len(tokens) - cut >= 4 else 0
    return 0


_ACRONYM = re.compile(r"[A-Z]{2,6}s?")   # "ECs are legally binding ...": it opens one too


def _numbered_lead(sentence: str, tokens: Sequence[tuple[int, str]]) -> int:
    """Where the statement starts after a numbered heading in title case, else 0."""
    m = _NUMBERED.match(sentence)
    if not m:
        return 0
    words = [(start, word) for start, word in tokens if start >= m.end()]
    for i, (_, word) in enumerate(words):
        if word[:1].islower() and word.lower() not in _SMALL:
            break                                   # the first lower-case content word
        if not (word[:1].isupper() or word[:1].isdigit() or word.lower() in _SMALL):
            return 0
    else:
        return 0
    start = i - 1                                   # the word that opens the statement
    if start < 0 or not (_opens(words[start][1]) or _ACRONYM.fullmatch(words[start][1])) \
            or len(words) - start < 4:
        return 0
    if start == 0 or words[start][1].lower() in _OPENERS:
        return words[start][0]
    before = words[start - 1][1]
    return words[start][0] if before.lower() not in _SMALL and not _caps(words[start][1]) else 0


_CONTENTS = re.compile(r"(?:\s*§\s*\d[\d.]*[a-z]?\s+[^§.]{2,100}\.){2,}\s*")
_LABELS = re.compile(r"^\s*(?:\(\s*[a-zA-Z0-9]{1,5}\s*\)\s*)+")


# a regulation's source or authority note, or its amendment history in brackets:
# "Source: 43 FR 45077, Sept. 29, 1978, unless otherwise noted.", "[62 FR 13464, ...]"
_NOTE = re.compile(r"^\s*(?:(?:Source|Authority)\s*:|\[\s*\d+\s+FR\s+\d+)")
# a notice about the document itself, not a statement of its subject: "Reproduction
# prohibited for commercial purposes.", "All rights reserved.", "© EMA 2023"
_NOTICE = re.compile(r"\breproduction\b[^.]{0,60}\b(?:prohibited|authori[sz]ed|permitted)\b|"
                     r"\ball rights reserved\b|^\s*(?:©|copyright\b)", re.I)


def is_heading(sentence: str, label: set[str] = frozenset(), first: bool = False) -> bool:
    """A heading, citation header or title line rather than a statement: short, a Markdown
    heading, made mostly of references and numbers, a title in capitals or in title case
    ("( e ) Export Control Statement."), a table of contents ("§ 11.100 General
    requirements. § 11.200 Signature components."), a source or authority note ("Source: 43
    FR 45077, Sept. 29, 1978, unless otherwise noted."), a notice about the document
    ("Reproduction prohibited for commercial purposes."), or (a line of at most 12 words, or
    the passage's ``first`` line at any length: "Section 89. Act done in good faith for
    benefit of child ...") only words of the passage's own heading or title (``label``)."""
    words = sentence.split()
    # (counted after a paragraph's label: "( c ) License exceptions." is two words)
    if len(_LABELS.sub("", sentence).split()) < 4 or sentence.lstrip().startswith("#") \
            or _NOTE.match(sentence) or _NOTICE.search(sentence):
        return True
    letters = sum(ch.isalpha() for ch in sentence)
    if letters < 0.55 * len(sentence.replace(" ", "")):
        return True
    if not any(ch.islower() for ch in sentence) and sum(map(_caps, words)) >= 3:
        return True                                 # a title in capitals
    body = _LABELS.sub("", sentence)               # "( e ) ", "(iv) ": a paragraph's label
    named = [w for w in re.findall(r"[^\W\d_][^\W\d_'’-]*", body) if w.lower() not in _SMALL]
    if named and len(words) <= 14 and all(w[0].isupper() for w in named):
        return True                                 # a title in title case
    if _CONTENTS.fullmatch(sentence):
        return True                                 # "§ 11.100 General requirements. § 11.200 ..."
    terms = set(analyze(sentence))
    return bool(label) and (len(words) <= 12 or first) and bool(terms) and terms <= label


_LIST_OPEN = re.compile(r"(?::|\b(?:include|includes|including|example|e\.g\.),?)\s*"
                        r"\(?(?:1|a|i)[.)]\s")
_LIST_NEXT = re.compile(r"[;,.]\s*(?:and\s+|or\s+)?\(?(?:2|b|ii)[.)]\s")


# a whole said to be made of parts, two or more: "Risk assessment consists of the
# identification of hazards and the analysis and evaluation of risks ..."
_MADE_OF = re.compile(r"^[^,;:]{1,80}?\b(?:consists?\s+of|comprises?|(?:is|are)\s+made\s+up\s+of|"
                      r"(?:is|are)\s+composed\s+of)\s+[^;:]{3,200}?(?:,|\band\b)")


def enumerates(sentence: str) -> bool:
    """Whether a sentence holds a list: it introduces the items that follow it ("... shall
    include the following:"), runs them on after a colon or an "include" ("...: (1) ...;
    (2) ...", "... should include, for example, (1) ..., (2) ..."), or
    says what its subject is made of, two parts or more ("Risk assessment consists of the
    identification of hazards and the analysis ...")."""
    text = " ".join(sentence.split())
    if text.endswith(":"):          # a statement introducing items, not a label ("Table 1:")
        return len(text.split()) >= 3
    opened = _LIST_OPEN.search(text)
    return bool(opened and _LIST_NEXT.search(text, opened.end())) or bool(_MADE_OF.match(text))
