"""What a question asks to define: the subject of "What is X?", "X definition", "what does
S say about X", a bare keyword question naming X, or the two things a comparison names.

Pure functions over the question's text; the answer path prefers sentences and passages
that define what these return (:mod:`.shapes` reads the sentences).
"""

from __future__ import annotations

import bisect
import functools
import re
from typing import Sequence

from ..analysis import analyze
from ..embedding.tokenizer import whole_words

_DEFINE_Q = re.compile(
    r"^\s*(?:what(?:\s+(?:is|are|r)|['’]s)\s+(?:meant\s+by\s+)?|whats\s+|define\s+|definition\s+of\s+|"
    r"what\s+does\s+(?P<mean>.+?)\s+(?:mean|stand\s+for)\b|"
    r"how\s+(?:does|do)\s+.+?\s+(?:define|describe)\s+|"
    r"how\s+(?:is|are)\s+(?P<how>.+?)\s+(?:defined|described)\b|"
    r"how\s+(?!(?:does|do|is|are)\b).{1,80}?\s+(?:defines|describes)\s+|"   # (indirectly, below)
    # "what does ICH say about continuous processing": what it is comes first
    r"what\s+(?:does|do)\s+.+?\s+(?:say|state)\s+(?:about|regarding)\s+|"
    # what it takes to be one: "what makes an e-signature an advanced electronic
    # signature", "what counts as a critical deviation", "when is a change considered major"
    r"what\s+(?:counts|qualifies)\s+as\s+|what\s+constitutes\s+|"
    r"what\s+makes\s+\S+(?:\s+\S+){0,3}?\s+(?=(?:an?|the)\s)|"
    r"when\s+(?:is|are)\s+\S+(?:\s+\S+){0,3}?\s+(?:considered|regarded\s+as|deemed)"
    r"\s+(?:to\s+be\s+)?)"
    r"(?P<rest>.*)$", re.I)
_DEFINE_KEYWORDS = re.compile(
    r"^\s*(?!(?:what|how|why|when|where|which|who|whom|whose|is|are|does|do|did|can|could|"
    r"should|may|must)\b)(?:the\s+)?(?P<subject>[^?,;]{2,60}?)\s+(?:definition|definiton|"
    r"meaning|defined)\b(?:\s+(?:under|according\s+to|in|per|by)\b.*|"
    r"(?:\s+[\w().+/-]+){1,3})?\s*\??\s*$", re.I)
_QUALIFIER = re.compile(r"\s+(?:under|according\s+to|in|per|as\s+defined\s+(?:in|by)|by|"
                        r"within|for\s+the\s+purposes?\s+of)\s+.*$", re.I)


def definition_subject(question: str) -> list[str]:
    """The analysed terms of what a definitional question asks to define ("What is an
    electronic signature under 21 CFR Part 11?", or in keywords "electronic signature
    definition under 21 CFR Part 11" -> electron, signatur), else []."""
    return _definition_subject(question)[0]


# a request around the question: "could you tell me how ICH Q12 defines established
# conditions", "I need to know what is meant by a batch", "please explain what ... means"
_REQUEST = re.compile(r"^\s*(?:(?:please\s+)?(?:(?:could|can|would)\s+you\s+(?:please\s+)?)?"
                      r"(?:(?:tell|show)\s+(?:me|us)|explain(?:\s+to\s+(?:me|us))?)"
                      r"|i\s+(?:need|want|would\s+like)\s+to\s+(?:know|understand))\s+"
                      r"(?=(?:what|how)\b)", re.I)


def _definition_subject(question: str) -> tuple[list[str], list[str]]:
    """:func:`definition_subject`, and the acronyms the subject names in parentheses
    ("continuous manufacturing (CM)": CM), each as its analysed term."""
    # a lead-in naming where to look: "MHRA GxP DI guidance: definition of metadata?",
    # "EU GMP Annex 16 - what is a QP confirmation?"
    parts = _LEAD_IN.split(question, maxsplit=1)
    lead_in, colon, asked = (parts[0], ":", parts[1]) if len(parts) == 2 else (question, "", "")
    asked = _REQUEST.sub("", asked.strip(), count=1)
    if colon and _DEFINE_Q.match(asked) and not _ASKS.search(lead_in):
        question = asked
    question = _REQUEST.sub("", question, count=1)
    m = _DEFINE_Q.match(question.strip())
    if m:
        subject = m.group("mean") or m.group("how") or m.group("rest")
    else:                               # keywords: "electronic signature definition under ..."
        m = _DEFINE_KEYWORDS.match(question.strip())
        subject = m.group("subject") if m else _named_thing(question)
        if not subject:
            return [], []
    subject = re.sub(r"^(?:an?|the)\s+", "", subject.strip().rstrip("?. "), flags=re.I)
    subject = re.sub(r"^(?:the\s+)?(?:term|expression|word|phrase)s?\s+(?=\S)", "", subject,
                     flags=re.I)                  # "define the term batch": batch
    subject = re.sub(r"^(?:the\s+)?(?:definition|meaning)\s+of\s+(?:an?\s+|the\s+)?(?=\S)", "",
                     subject, flags=re.I)         # "... say about the definition of theft"
    subject = _QUALIFIER.sub("", subject)
    acronyms = [analyze(a) for a in _ACRONYM_AFTER.findall(subject)
                if sum(ch.isupper() for ch in a) >= 2]
    subject = re.sub(r"\([^)]*\)", " ", subject)
    # "what is a QP confirmation and what responsibility does the QP take on?": two
    # questions, the first asking to define what it names
    subject = _AND_ANOTHER.split(subject, maxsplit=1)[0]
    if _ANOTHER_QUESTION.search(subject):
        return [], []        # "the purpose of X and how is it structured": no term to define
    terms = analyze(subject)
    if not terms or len(terms) > KEYWORD_WORDS:
        return [], []
    return terms, [a[0] for a in acronyms if len(a) == 1 and a != terms]


# an acronym in parentheses: "(CM)", "(OOS)", "(CQAs)"
_ACRONYM_AFTER = re.compile(r"\(\s*([A-Z][A-Za-z0-9]{1,11})\s*\)")   # two capitals or more


# a second question run into the first: what follows is no term
_LEAD_IN = re.compile(r":|\s[-–—]\s")
_AND_ANOTHER = re.compile(r",?\s+and\s+(?=(?:how|why|when|where|which|who|whom|what|whether)\b)",
                          re.I)
_ANOTHER_QUESTION = re.compile(r"\b(?:how|why|when|where|which|who|whom|what|whether)\b", re.I)
# a question word as a question writes it ("Who", "who"; not "WHO", the authority)
_ASKS = re.compile(r"\b(?:[Hh]ow|[Ww]hy|[Ww]hen|[Ww]here|[Ww]hich|[Ww]ho|[Ww]hom|[Ww]hat|"
                   r"[Ww]hether)\b")


_COMPARE = (
    re.compile(r"^\s*(?:(?:what|which)\s+(?:is|are)\s+|what['’]s\s+|whats\s+)?(?:the\s+)?"
               r"(?:main\s+|key\s+)?differences?\s+between\s+(?P<a>.+?)\s+and\s+(?P<b>.+)$", re.I),
    re.compile(r"^\s*how\s+(?:does|do|is|are)\s+(?P<a>.+?)\s+(?:differ|different)\s+"
               r"from\s+(?P<b>.+)$", re.I),
    re.compile(r"^\s*compare\s+(?P<a>.+?)\s+(?:and|with|to)\s+(?P<b>.+)$", re.I),
    re.compile(r"^\s*(?P<a>[^?]+?)\s+(?:vs\.?|versus|compared\s+(?:to|with))\s+(?P<b>.+)$", re.I),
)


_DIFFERENCE = re.compile(r"\b(?:main\s+|key\s+)?differences?\s+between\s", re.I)


# where a compared side ends: a colon or semicolon, or a question run on after it
_SIDE_END = re.compile(r"\s*[:;]\s*|,?\s+(?=(?:[Ww]hat|[Hh]ow|[Ww]hy|[Ww]hich|[Ww]ho|[Ww]hom|"
                       r"[Ww]hen|[Ww]here|[Ww]hether)\b)")   # (not "WHO", the authority)


def compared_subjects(question: str) -> list[list[str]]:
    """The analysed terms of the two things a question compares ("What is the difference
    between a reference sample and a retention sample under EU GMP Annex 19?" -> [refer,
    sampl], [retent, sampl]), else []. Qualifiers and document designations ("under ...",
    "annex 19") are no part of either; a side is taken as written ("reference vs retention
    sample": [refer], [retent, sampl] — whether "sample" belongs to both is not guessed)."""
    text = " ".join(question.split()).rstrip("?.! ")
    # after any lead-in: "eu gmp annex 19 difference between ...", "Is there a ..."
    anchor = _DIFFERENCE.search(text)
    if anchor:
        text = text[anchor.start():]
    for form in _COMPARE:
        m = form.match(text)
        if m:
            break
    else:
        return []
    sides = []
    # the first side starts after a lead-in ("Sec. 740.8: NAC versus ACA?"), the second
    # ends where a question runs on ("... versus analytical method: what does ... say")
    for side in (re.split(r"\s*[:;]\s*", m.group("a"))[-1],
                 _SIDE_END.split(m.group("b"), maxsplit=1)[0]):
        side = re.sub(r"^(?:an?|the)\s+", "", _QUALIFIER.sub("", side.strip()), flags=re.I)
        side = re.sub(r"\([^)]*\)", " ", side)
        sides.append(_named_thing(side) or side)
    out = [analyze(side) for side in sides]
    return out if all(out) and set(out[0]) != set(out[1]) else []


def definition_subjects(question: str) -> list[list[str]]:
    """What a question asks to define: the two things it compares
    (:func:`compared_subjects`), else the one a definitional question names
    (:func:`definition_subject`), else none. A side of one word beside a side of several
    is also read with the other's last word, the head noun English lets a coordination
    share ("reference vs retention sample": [refer], [retent, sampl] and [refer, sampl]),
    as a third subject; when both sides open with a verb's "-ing" form, the several
    words' first alone, the other words being the object the two verbs share
    ("reprocessing and reworking a batch": [rework]): readings more, none replaced."""
    pair = compared_subjects(question)
    if pair:
        shared = [[*one, many[-1]] for one, many in (pair, pair[::-1])
                  if len(one) == 1 and len(many) > 1 and many[-1] != one[0]]
        gerunds = {t for w in re.findall(r"[A-Za-z-]+ing\b", question) for t in analyze(w)}
        shared += [many[:1] for one, many in (pair, pair[::-1])
                   if len(one) == 1 and len(many) > 1 and many[0] != one[0]
                   and {one[0], many[0]} <= gerunds]
        return _spelt_out(pair + [s for s in shared if s not in pair])
    one, acronyms = _definition_subject(question)
    # the subject's acronym, as a user writes it or :mod:`ragd.retrieval.acronyms` reads it
    # from the documents ("continuous manufacturing (CM)"), is a subject too: a document,
    # once it has introduced it, goes on to define the thing by it ("CM involves ...")
    return _spelt_out([one] if one else []) + [[a] for a in dict.fromkeys(acronyms)]


def _spelt_out(subjects: list[list[str]]) -> list[list[str]]:
    """``subjects`` and, for one written with the prefix "e-" ("e-signature": e, signatur),
    the same spelt out ("electronic signature": electron, signatur), the form a definition
    uses."""
    out = list(subjects)
    for subject in subjects:
        if "e" in subject[:-1]:
            long = ["electron" if t == "e" else t for t in subject]
            if long not in out:
                out.append(long)
    return out


KEYWORD_WORDS = 6        # "ICH Q13 continuous manufacturing?": a few words, no question form
_QUESTION_START = re.compile(
    r"^\s*(?:what|how|why|when|where|which|who|whom|whose|is|are|was|were|does|do|did|can|"
    r"could|should|would|will|shall|may|might|must|has|have|if|please|tell|give|list|explain|"
    r"describe|compare|i|we|my|our)\b", re.I)


def _named_thing(question: str) -> str:
    """The thing a bare keyword question names ("design space q8r2?" -> "design space",
    "Part 11 e-signature?" -> "e-signature"), which asks what it is; "" for anything else.
    Designations of documents are not the thing: a word holding a digit ("Q13", "q8r2"),
    and the word a bare number names ("Part 11", "CFR 211.180"), split the words into runs,
    and the run of most index terms (the first on a tie) is the thing."""
    words = question.strip().rstrip("?.! ").split()
    if not words or len(words) > KEYWORD_WORDS or _QUESTION_START.match(question):
        return ""
    numbered = [any(ch.isdigit() for ch in w) for w in words]
    bare = [bool(re.fullmatch(r"[\d.()-]+", w)) for w in words]
    runs: list[list[str]] = [[]]
    for i, word in enumerate(words):
        if numbered[i] or (i + 1 < len(words) and bare[i + 1]):
            runs.append([])
        else:
            runs[-1].append(word)
    best = max(runs, key=lambda run: len(analyze(" ".join(run))))
    return " ".join(best)


NAME_PREFIX = 4          # a word and a name's term that begins it name the same ("guid": guidance)


def undesignated(subject: Sequence[str], names: set[str]) -> list[str]:
    """``subject`` without the words before it that name a document (``names``: the terms of
    a document's name and title), when some remain: a keyword question often opens with the
    document it asks about ("mhra gxp data integrity guidance metadata definition" asks
    what metadata is, of the MHRA GxP data integrity guide). A word names the document when
    it is a term of its name, or one begins the other and both are ``NAME_PREFIX`` letters or
    more (a file name's "guide" for "guidance"). The words set aside must hold a designation
    — a code or an acronym no English word begins, "mhra", "gxp", "q9" — or they are the
    term's own words that a file name happens to share ("data governance" of the MHRA data
    integrity guide stays whole). [] when nothing is set aside, or everything would be."""
    def named(term: str) -> bool:
        return term in names or any(
            min(len(term), len(n)) >= NAME_PREFIX and (n.startswith(term) or term.startswith(n))
            for n in names)
    cut = 0
    while cut < len(subject) and named(subject[cut]):
        cut += 1
    if not 0 < cut < len(subject) or not any(designation(t) for t in subject[:cut]):
        return []
    return list(subject[cut:])


def designation(term: str) -> bool:
    """Whether an analysed term designates rather than says: it holds a digit ("q9",
    "211"), or no English word of the bundled vocabulary begins with it ("mhra", "gxp";
    not "integr", the stem of "integrity")."""
    if any(ch.isdigit() for ch in term):
        return True
    words = _sorted_words()
    i = bisect.bisect_left(words, term)
    return not (i < len(words) and words[i].startswith(term))


@functools.cache
def _sorted_words() -> list[str]:
    return sorted(w.lower() for w in whole_words())




_LIST_ASKED = re.compile(
    r"\b(?:lists?|listed|enumerat\w*|contents|elements|components|steps|stages|phases|items)\b|"
    r"\bwhich\b.{0,80}\b(?:include|includes|contain|contains)\b|"
    r"\bwhat\b.{0,80}\b(?:must|should|shall|does|do)\b.{0,80}\b(?:include|contain)\b|"
    # "what details should be given", "which particulars must be stated"
    r"\b(?:what|which) (?:\w+ ){0,2}(?:details|particulars|points|aspects|criteria|items)\b"
    r".{0,40}\b(?:given|provided|included|stated|described|documented|recorded|listed)\b|"
    # "the four PQS elements", "the 3 stages" (a count of things, not of time: "the 3 years")
    r"\bthe (?:two|three|four|five|six|seven|eight|nine|ten|\d{1,2}) (?:\w+ ){0,2}"
    r"(?!(?:years|months|weeks|days|hours|minutes)\b)\w{2,}s\b", re.I)


def asks_for_list(question: str) -> bool:
    """Whether a question asks for the items of a list: "which in-process controls does
    211.110 list", "what are the four PQS elements", "signature manifestation contents",
    "what must a signed record contain"."""
    return bool(_LIST_ASKED.search(" ".join(question.split())))


__all__ = ["KEYWORD_WORDS", "asks_for_list", "compared_subjects", "definition_subject",
           "definition_subjects", "undesignated"]
