"""Answer checks: does a drafted answer answer *this* question? Registered by name.

After the extractive (or model) sentences pass the citation validators, each check a
profile lists (``[answer] checks``, in order) reads the question and the draft — its
sentences, the passages they cite, what the collection holds — and returns a refusal
reason, or None to let the answer stand. A check is a pure function of a
:class:`Draft`; generic code names no profile, regulation or act.

* ``facts_supplied`` — a question that asks for a verdict on the asker's own thing
  ("Is my product ...?", "Can I ship this order ...?") without describing it cannot be
  decided from documents: ``facts_not_supplied``.
* ``usual_or_current`` — a question about what usually, typically or currently happens
  ("How long does a trial usually take?", "Who is currently the ...?") asks for practice or
  the present state of affairs; documents of rules answer it only with a sentence that
  speaks in those terms itself: else ``undetermined``.
* ``stated_figures`` — a rate or sum the question states itself ("is the threshold 10%
  or 25%?", "a fee of $500") that no accepted passage states, in digits or in words, is
  not one the documents speak of: ``not_in_documents``.
* ``steps_asked`` — "How do I apply to ...?", "How to register ...?" asks how to do
  something: an answer none of whose sentences speaks of that action (the verb or a word
  made from it: "apply", "application") describes the subject, not the way: ``undetermined``.
* ``wording_asked`` — a question asking for the exact wording or text of something is
  answered only by a sentence that quotes it or introduces it ("... shall read:", "the
  following statement"): else ``undetermined``.
* ``named_parts`` — a question naming a numbered part of a document ("Annex 23", "Appendix
  4", "Chapter 9") that no retrieved passage mentions, in its text or its labels (document
  id, title, heading path), asks about a part the collection does not hold:
  ``not_in_documents``.
* ``named_titles`` — a question naming an instrument by its title ("the proposed EU
  Critical Medicines Act", "the Windsor Framework") that no retrieved passage mentions, in
  its text or its labels, asks about an instrument the collection does not hold:
  ``not_in_documents``.
* ``holder_asked`` — "Who was the CDER director in 2018?", "Who chaired the working group?"
  asks who held an office: an answer none of whose sentences names the office (director,
  chair, commissioner, ...) in any form does not say who held it, whatever else it says of
  the body: ``undetermined``. "Who must certify ...?", "Who is allowed to ...?" ask for a
  role, and are not read so.
* ``members_asked`` — "Which countries are in Group B?" asks what a named group holds: an
  answer needs a sentence that names the group and says what it holds ("Group B includes
  ...", "... Group B:") or lists names; sentences that only mention the
  group in passing do not answer it: ``undetermined``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, Sequence

from ..registry import Registry
from ..text import STOPWORDS, words
from .named import mentions_part, mentions_title, named_parts, named_titles


@dataclass(frozen=True)
class Draft:
    """What an answer check may read.

    ``question``: the question (references written canonically by the citation scheme);
    ``sentences``: the answer's sentences; ``cited``: the texts of the passages they cite;
    ``evidence``: the texts of every accepted passage (cited or not); ``pool``: every
    retrieved passage, its labels (document id, title, heading path) then its text."""

    question: str
    sentences: tuple[str, ...]
    cited: tuple[str, ...] = ()
    evidence: tuple[str, ...] = ()
    pool: tuple[str, ...] = ()


AnswerCheck = Callable[[Draft], "str | None"]
ANSWER_CHECKS: Registry[AnswerCheck] = Registry("answer check")


def run_checks(names: Sequence[str], draft: Draft) -> tuple[str, str] | None:
    """(reason, check) of the first listed check that refuses the draft, else None."""
    for name in names:
        reason = ANSWER_CHECKS.get(name)(draft)
        if reason:
            return reason, name
    return None


def _first_sentence(question: str) -> str:
    parts = re.split(r"(?<=[.?!])\s+", question.strip(), maxsplit=1)
    return parts[0] if parts else ""


# "Is my product ...", "Are our goods ...": a verdict on the asker's own thing
_OWN_VERDICT = re.compile(r"^\s*(?:is|are|was|were)\s+(?:my|our)\s+[a-z]", re.I)
# "this order", "these goods" opening a question: nothing before it says which
_DEICTIC = re.compile(r"\b(?:this|these)\s+(?!is\b|are\b|was\b|were\b|means?\b)([a-z][a-z-]*)",
                      re.I)


DESCRIBED = 4   # content words before "this ..." in its sentence: they say which thing


def unsupplied(question: str) -> bool:
    """Whether the question asks about a thing of the asker's it never describes: a
    first sentence that asks whether the asker's own thing is something ("Is my customer a
    military end user?"), or that points at "this"/"these" thing with nothing before it
    to say which ("Can I ship this order under ...?": fewer than ``DESCRIBED`` content
    words before it). A question that first describes its case ("My accountant spent the
    money. What is this offence called?", or in one long sentence: "Our QC lab is moving to
    a new LIMS ... for a computerised system like this one?") is not one."""
    first = _first_sentence(question)
    if _OWN_VERDICT.match(first):
        return True
    # a clause naming the rules ("Under the regulations, can I ship this order?") is no case
    case = _RULE_CLAUSE.sub("", first, count=1)
    return any(sum(1 for w in words(case[:m.start()]) if w.lower() not in STOPWORDS)
               < DESCRIBED for m in _DEICTIC.finditer(case))


_RULE_CLAUSE = re.compile(r"^\s*(?:under|per|as\s+per|according\s+to|regarding|pursuant\s+to)"
                          r"\s+[^,;?]{1,120},\s*", re.I)


@ANSWER_CHECKS.register("facts_supplied")
def facts_supplied(draft: Draft) -> str | None:
    return "facts_not_supplied" if unsupplied(draft.question) else None


# (not "currently" or "presently" before a participle, which says what the asker's own
# thing is — "more cycles than currently claimed", "the presently approved process" — nor
# the "current" of current good manufacturing practice)
_USUAL = re.compile(r"\b(?:usual(?:ly)?|typical(?:ly)?|on average|average|"
                    r"(?:currently|presently)(?!\s+(?:[a-z]+ed|given|taken|written|chosen|"
                    r"shown|known|proven|held|used)\b)|"
                    r"current(?!\s+good\b)|at present|nowadays|these days|right now|today|"
                    r"latest|so far|to date|in practice)\b", re.I)


def usual_or_current(text: str) -> list[str]:
    """The words of ``text`` that ask (or tell) how things usually, typically or currently
    are, lower-cased, in order."""
    return [m.group(0).lower() for m in _USUAL.finditer(text)]


@ANSWER_CHECKS.register("usual_or_current")
def usual_or_current_check(draft: Draft) -> str | None:
    if not usual_or_current(draft.question):
        return None
    if any(usual_or_current(s) for s in draft.sentences):
        return None
    return "undetermined"


_FIGURE = re.compile(r"(?:[$€£₹]\s?(?P<money>\d[\d,]*(?:\.\d+)?))|"
                     r"(?P<value>\d[\d,]*(?:\.\d+)?)\s*(?:%|percent\b|per\s+cent\b|"
                     r"(?:dollars?|rupees?|euros?|pounds)\b)", re.I)
_NUMERAL = re.compile(r"\d[\d,]*(?:\.\d+)?")
_ONES = ("zero one two three four five six seven eight nine ten eleven twelve thirteen "
         "fourteen fifteen sixteen seventeen eighteen nineteen").split()
_TENS = "twenty thirty forty fifty sixty seventy eighty ninety".split()
_WORDED = re.compile(r"\b(?:(" + "|".join(_TENS) + r")(?:[\s-]+(" + "|".join(_ONES[1:10])
                     + r"))?|(" + "|".join(_ONES) + r"))(?:\s+(hundred|thousand))?\b", re.I)


def _number(text: str) -> str:
    """A numeral without its separators or a trailing zero fraction (``1,000.0`` → ``1000``)."""
    value = text.replace(",", "")
    return value[:-2] if value.endswith(".0") else value


def stated_figures(question: str) -> list[str]:
    """The rates and sums a question states itself ("10%", "25 percent", "$500",
    "1,000 rupees") as plain numerals, in order. Quantities of the asker's case ("a 56-bit
    key", "within 24 hours") are not: a rule states the limit they are held against
    ("not exceeding 64 bits"), not the asker's figure."""
    out = [_number(m.group("money") or m.group("value")) for m in _FIGURE.finditer(question)]
    return list(dict.fromkeys(out))


def numbers_in(text: str) -> set[str]:
    """Every number a text states, in digits or in words ("twenty-four" → ``24``)."""
    found = {_number(m.group(0)) for m in _NUMERAL.finditer(text)}
    for m in _WORDED.finditer(text):
        tens, ones, single, scale = (g.lower() if g else g for g in m.groups())
        value = (_TENS.index(tens) + 2) * 10 + (_ONES.index(ones) if ones else 0) if tens \
            else _ONES.index(single)
        if scale:
            value *= 100 if scale == "hundred" else 1000
        found.add(str(value))
    return found


@ANSWER_CHECKS.register("stated_figures")
def stated_figures_check(draft: Draft) -> str | None:
    """A rate or sum the question states ("is the threshold 10% or 25%?") that no accepted
    passage states, in digits or words, is not something the documents speak of."""
    figures = stated_figures(draft.question)
    if not figures:
        return None
    held = numbers_in(" ".join(draft.evidence))
    return "not_in_documents" if any(f not in held for f in figures) else None


_HOW_TO = re.compile(r"^\s*how\s+(?:(?:do|can|could|should|must|would|may|might)\s+"
                     r"(?:i|we|you|one|they|(?:a|an|the|my|our)\s+[a-z-]+)|to)\s+"
                     r"(?:go\s+about\s+|best\s+|actually\s+)?(?P<verb>[a-z]+)\b", re.I)
# verbs that name no particular action ("how do I get bail", "how do I know whether ...")
_LIGHT = frozenset("be get do make know find tell go have see work deal handle proceed "
                   "ensure check decide determine figure".split())
# ... nor does a question with a verb of reading a thing ("How do the WHO good distribution
# practices define sampling?": what it is, which a definition answers in its own words)
_READING = frozenset("define defines describe describes interpret interprets characterise "
                     "characterises characterize characterizes".split())


# "How do the IMPD's quality data differ from a marketing application's?", "How does X
# compare with Y?" ask how two things stand to each other, not the way to do something
_RELATING = re.compile(r"\b(?:differ|differs|differing|different|differences?|compare|compares|"
                       r"compared|comparison|contrast|contrasts|versus|vs|relate|relates|"
                       r"relationship)\b", re.I)


def asked_action(question: str) -> str | None:
    """The action a how-to question asks the way to do, as the word prefix its forms share
    ("How do I apply to the agency ...?" → ``appl``: apply, applies, application), else None
    (and None for a question comparing or relating two things: "How do X differ from Y?",
    or asking how a text reads one: "How do the WHO GDP define sampling?")."""
    m = _HOW_TO.match(question)
    if not m or m.group("verb").lower() in _LIGHT or _RELATING.search(question) \
            or any(w in _READING for w in re.findall(r"[a-z]+", question.lower())):
        return None
    verb = m.group("verb").lower()
    return verb[:max(4, len(verb) - 2)]


@ANSWER_CHECKS.register("steps_asked")
def steps_asked(draft: Draft) -> str | None:
    """A how-to question's answer must speak of the action it asks about."""
    action = asked_action(draft.question)
    if action is None:
        return None
    words = re.findall(r"[a-z]+", " ".join(draft.sentences).lower())
    return None if any(w.startswith(action) for w in words) else "undetermined"


_WORDING = re.compile(r"\b(?:exact|precise|actual|specific|required)\s+(?:wording|words|text|"
                      r"language|phrasing)\b|\bword\s+for\s+word\b|\bverbatim\b", re.I)
_QUOTES = re.compile(r"[\"“‘«][^\"“”‘’«»]{12,}[\"”’»]|'[^']{12,}'|:\s*$|\bas follows\b|"
                     r"\bthe following (?:statement|text|wording|words|legend|notice)\b", re.I)


def asks_wording(question: str) -> bool:
    """Whether a question asks for the exact wording of something."""
    return bool(_WORDING.search(question))


@ANSWER_CHECKS.register("wording_asked")
def wording_asked(draft: Draft) -> str | None:
    """A question for the exact wording needs a sentence that quotes or introduces it."""
    if not asks_wording(draft.question):
        return None
    return None if any(_QUOTES.search(s) for s in draft.sentences) else "undetermined"


_MEMBERS_Q = re.compile(r"^\s*(?:which|what)\s+[a-z-]+s\s+(?:are|is)\s+(?:(?:in|on)|"
                        r"(?:part|members?)\s+of|(?:included|listed)\s+in|covered\s+by)\s+"
                        r"(?:the\s+)?(?P<group>[^?]{2,80}?)\s*\??\s*$", re.I)
_HOLDS = re.compile(r"\s*(?:\([^)]{0,80}\)\s*)?(?::|includes?\b|including\b|contains?\b|lists?\b|consists?\s+of\b|"
                    r"comprises?\b|(?:is|are)\s+(?:made\s+up\s+of|composed\s+of|the\s+following|"
                    r"as\s+follows|listed\s+below)\b|(?:is|are)\s+[A-Z])")
_NAMES = re.compile(r"(?:\b[A-Z][\w.'’-]+(?:\s+[A-Z][\w.'’-]+)*\s*,\s*){2,}(?:and\s+|or\s+)?"
                    r"[A-Z][\w.'’-]+")


def asked_group(question: str) -> str | None:
    """The named group a question asks the members of ("Which countries are in Group B?" →
    ``Group B``), else None."""
    m = _MEMBERS_Q.match(question)
    return m.group("group") if m else None


@ANSWER_CHECKS.register("members_asked")
def members_asked(draft: Draft) -> str | None:
    """A question for a group's members needs a sentence saying what the group holds."""
    group = asked_group(draft.question)
    if group is None:
        return None
    pattern = re.compile(r"\s+".join(map(re.escape, group.split())), re.I)
    for sentence in draft.sentences:
        for m in pattern.finditer(sentence):
            if _HOLDS.match(sentence, m.end()) or _NAMES.search(sentence, m.end()):
                return None
    return "undetermined"


_OFFICES = {   # an office, or a verb of holding one -> the words an answer names it by
    "director": "direct(?:or|ors|ed|s|ing)", "directed": "direct(?:or|ors|ed|s|ing)",
    "chair": "chair(?:s|ed|ing|man|men|woman|person|manship)?",
    "commissioner": "commissioners?", "president": "president(?:s|cy)?|presid(?:ed|es|ing)",
    "secretary": "secretar(?:y|ies)", "minister": "ministers?", "head": "head(?:s|ed|ing)?",
    "chief": "chiefs?", "administrator": "administrators?", "governor": "governors?",
    "rapporteur": "rapporteurs?", "signatory": "sign(?:ed|atory|atories|s)",
    "justice": "justices?", "judge": "judges?", "lead": "le(?:d|ads?|ader|aders|ading)",
    "author": "author(?:s|ed)?"}
_VERB_OF = {"chaired": "chair", "chairs": "chair", "chairing": "chair", "headed": "head",
            "heads": "head", "heading": "head", "led": "lead", "leads": "lead",
            "leading": "lead", "directs": "director", "directing": "director",
            "presided": "president", "presides": "president", "signed": "signatory",
            "authored": "author"}
_HOLDER_Q = re.compile(
    r"\bwho\s+(?:(?:is|was|are|were|has\s+been|had\s+been)\s+(?:(?:currently|presently|now|"
    r"then)\s+)?(?:(?:the|its|their)\s+)?(?:(?:current|present|then|former|first|new|acting)\s+)?"
    r"(?:[\w/&()'’.-]+\s+){0,4}?(?P<office>" + "|".join(k for k in _OFFICES if k != "lead")
    + r")s?\b(?!\s+(?:of\s+)?(?:responsible|accountable)\b)"
    # held: in the past, or now ("who currently chairs"); "who leads the investigation?"
    # asks for a role
    r"|(?:(?:is|are|was|were)\s+(?:(?:currently|now)\s+)?(?=\w+ing\b)|(?:currently|now)\s+"
    r"(?=\w+s\b)|(?=\w+ed\b|led\b))(?P<verb>" + "|".join(_VERB_OF) + r")\b)", re.I)


_NAMED_OFFICE = {office: re.compile(r"\b(?:" + forms + r")\b", re.I)
                 for office, forms in _OFFICES.items()}


def asked_office(question: str) -> str | None:
    """The office a question asks the holder of ("Who was the CDER director?" →
    ``director``; "Who chaired ...?" → ``chair``), else None; "who should/must/may ..." and
    "who is allowed/responsible ..." ask for a role."""
    m = _HOLDER_Q.search(_first_sentence(question))
    if m is None:
        return None
    return m.group("office").lower() if m.group("office") else _VERB_OF[m.group("verb").lower()]


@ANSWER_CHECKS.register("holder_asked")
def holder_asked(draft: Draft) -> str | None:
    """A question for who held an office needs a sentence that names the office."""
    office = asked_office(draft.question)
    if office is None:
        return None
    named = _NAMED_OFFICE[office]
    return None if any(named.search(s) for s in draft.sentences) else "undetermined"


@ANSWER_CHECKS.register("named_parts")
def named_parts_check(draft: Draft) -> str | None:
    """A numbered part the question names that no retrieved passage mentions refuses."""
    for noun, number in named_parts(draft.question):
        if not any(mentions_part(noun, number, text) for text in draft.pool):
            return "not_in_documents"
    return None


@ANSWER_CHECKS.register("named_titles")
def named_titles_check(draft: Draft) -> str | None:
    """An instrument the question names by title that no retrieved passage mentions refuses."""
    for title in named_titles(draft.question):
        if not any(mentions_title(title, text) for text in draft.pool):
            return "not_in_documents"
    return None


__all__ = ["ANSWER_CHECKS", "AnswerCheck", "Draft", "asked_action", "asked_group", "asked_office",
           "asks_wording", "named_parts", "named_titles", "numbers_in", "run_checks",
           "stated_figures", "unsupplied", "usual_or_current"]
