"""Does the evidence determine an answer? Checks on the question against what was found.

* ``outside_terms``: a question naming things the documents lack (another regime's
  acronym, a product code, a person) is not answered from them. A salient term —
  written in capitals, mixing letters and digits, or capitalised inside the question —
  that occurs nowhere in the retrieved pool (nor as a near-typo of a word that does)
  refuses.
* ``proper_names`` (for ``outside_names``): a question naming a company, a product or a
  programme by a proper name no passage of the collection holds ("the warning letter to
  Aurobindo", "Keytruda vials") asks about something the documents never mention.
* ``answer_type``: "how much", "how many", "how long", "by when", "when" ask for an
  amount, a number, a duration ("30 days", not a year), a date or a time; an answer whose
  sentences hold none does not answer them.
"""

from __future__ import annotations

import re
from typing import Mapping, Sequence

from ..analysis import analyze
from ..embedding.tokenizer import whole_words
from .terms import held, missing_terms

_TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9.\-]*[A-Za-z0-9]|[A-Za-z]")
_NUMBER_WORDS = ("one two three four five six seven eight nine ten eleven twelve thirty "
                 "sixty ninety hundred thousand million billion half")
_NUMBER = re.compile(r"\d|\b(?:" + "|".join(_NUMBER_WORDS.split()) + r")\b", re.I)
_MONEY = re.compile(r"[$€£₹]|\b(?:dollars?|usd|eur|euros?|rupees?|fee of|fees? (?:is|are) \d)",
                    re.I)
_DURATION = re.compile(r"\b(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|"
                       r"fifteen|twenty|thirty|sixty|ninety|hundred)[\s-]+(?:calendar\s+|"
                       r"business\s+|working\s+|clear\s+)?(?:days?|weeks?|months?|years?|hours?|"
                       r"minutes?)\b", re.I)
_TIME = re.compile(_DURATION.pattern + r"|\b(?:january|february|march|april|june|july|"
                   r"august|september|october|november|december)\b|\b\d{4}-\d{2}-\d{2}\b|"
                   r"\b\d{1,2}(?:st|nd|rd|th)?\s+may\b|\bmay\s+\d{1,2}\b|"
                   r"(?<!\d\d\d/)\b(?:19|20)\d{2}\b(?!/\d)|\b\d{1,2}/\d{1,2}/(?:19|20)?\d{2}\b",
                   re.I)
# (May is a month beside a day or a year, else the verb: "special guidance may apply"; a
# year a number of three digits or more joins by "/" is part of a legal act's number,
# "Directive 2001/83/EC", "Regulation (EU) No 536/2014", "(EU) 2016/161": it dates the
# act, not an event; "31/12/2025" is a date)


_PERCENT = re.compile(r"\d\s*%|\bper\s?cent\b|\bpercentage\b", re.I)


_MEASURE = re.compile(r"\d+(?:\.\d+)?-?([A-Za-z]+)")
_DEFINED = re.compile(r"[A-Za-z][\w'-]*\s*\(\s*([A-Za-z][A-Za-z0-9.\-]*)\s*\)")


def salient_units(question: str, names: bool = False) -> list[tuple[str, ...]]:
    """The question's acronyms (three or more capitals that are not an ordinary word
    shouted: ITAR, OFAC but not DROP) and codes (letters and digits: 5A991, DSP-5, Q13),
    each as the analysed terms it is indexed as (``DSP-5`` → ``dsp``, ``5``; a number
    joined to an ordinary word, ``56-bit`` or ``30-day``, is a quantity, not a code); with
    ``names``, also its words capitalised after the first (weaker evidence). An acronym
    the question spells out itself ("computer software assurance (CSA)") is not one: its
    words say what it is."""
    out: list[tuple[str, ...]] = []
    defined = {m.group(1) for m in _DEFINED.finditer(question)}
    tokens = [t for t in _TOKEN.findall(question) if t not in defined]
    common = whole_words()   # ordinary English
    for i, tok in enumerate(tokens):
        bare = tok.replace(".", "").replace("-", "")
        if not bare:
            continue
        acronym = len(bare) >= 3 and bare.isupper() and bare.lower() not in common
        measure = _MEASURE.fullmatch(tok)   # "56-bit", "30-day": a quantity, not a code
        code = (any(ch.isdigit() for ch in bare) and any(ch.isalpha() for ch in bare)
                and not (measure and measure.group(1).lower() in common))
        name = names and i > 0 and tok[0].isupper() and not tok.isupper()
        if acronym or code or name:
            # (as indexed: a code's pieces, "DSP-5" → dsp, 5; an acronym written with a
            # hyphen by its pieces too, "FT-IR" → ft, ir, which its joined form also
            # answers, "FTIR": :func:`unit_held`)
            terms = tuple(analyze(tok if code or "-" in tok else bare))
            if terms and terms not in out:
                out.append(terms)
    return out


_HYPHEN = re.compile(r"(?<=[A-Za-z])-(?=[A-Za-z])")


def unit_held(unit: Sequence[str], vocabulary: set[str]) -> bool:
    """Whether ``vocabulary`` holds a salient unit: each of its terms, or its pieces
    joined ("FT-IR" in the question, "FTIR" in the documents)."""
    return all(held(t, vocabulary) for t in unit) or (
        len(unit) > 1 and held("".join(unit), vocabulary))


def salient_terms(question: str, names: bool = False) -> list[str]:
    """Every analysed term of :func:`salient_units`, once."""
    return list(dict.fromkeys(t for unit in salient_units(question, names) for t in unit))


# a capitalised word as a name is written ("Keytruda", "BioSolutions", "Aurobindo's"), not
# joined to another by a hyphen, an apostrophe or a dot ("Pfizer-BioNTech", "U.S.-origin"
# are read elsewhere)
_NAME = re.compile(r"(?<![\w.\-'’])[A-Z][a-z]+(?:[A-Z][a-z]+)*(?![\w\-]|['’](?!s\b))")
_SENTENCE_OPENS = ".?!:;\"“("


def proper_names(question: str) -> list[str]:
    """The proper names of ``question`` as written, once each: its capitalised words that
    are no ordinary English word (the model's whole words: "Germany", "Brazil", "Annex"
    are; "Aurobindo", "Keytruda" are not) and do not open a sentence ("Assuming ...")
    or a parenthesis. Acronyms and codes are :func:`salient_units`."""
    common = whole_words()
    out: list[str] = []
    for match in _NAME.finditer(question):
        before = question[:match.start()].rstrip()
        word = match.group(0)
        if before and before[-1] not in _SENTENCE_OPENS and word.lower() not in common \
                and word not in out:
            out.append(word)
    return out


def outside_terms(question: str, terms: Sequence[str], vocabulary: set[str]) -> list[str]:
    """The question's acronyms and codes the documents lack (a term of theirs nowhere in
    the retrieved pool, nor a near-typo of a word that is): a question about them is
    outside the documents. Ordinary words a question happens to use ("break", "warning")
    and names of places do not count: the documents may say the same in other words."""
    units = salient_units(question)
    missing = set(missing_terms([t for u in units for t in u], vocabulary))
    return [" ".join(u) for u in units if missing & set(u) and not unit_held(u, vocabulary)]


def unanswered_terms(question: str, passages: Sequence[str], pool: Sequence[set[str]],
                     common: float = 0.25, documents: Sequence[set[str]] = (),
                     long_forms: Mapping[str, str] | None = None) -> list[str]:
    """The question's distinctive acronyms and codes that none of the answer's cited
    passages holds: an answer that never mentions the regime, form or item asked about
    ("DSP-5", "5A991", "OFAC") does not answer the question. An acronym found in at least
    ``common`` of the retrieved pool (the name of the rules the corpus holds) names the
    documents' own world, not the question's subject, and is not required; nor is one that
    retrieved passages of the cited documents hold (``documents``: their terms): the
    question used it to name that document ("the EMA IMPD guideline"), whose passages
    answer. An acronym is answered by its long form too (``long_forms``: acronym → long
    form, as the documents define it: "QRM" by "quality risk management")."""
    have: set[str] = set()
    for text in passages:     # (read with hyphens joined too: "FT-IR" holds "FTIR")
        have.update(analyze(text))
        have.update(analyze(_HYPHEN.sub("", text)))
    around: set[str] = set().union(*documents) if documents else set()
    spelt = {tuple(analyze(short)): analyze(long) for short, long in (long_forms or {}).items()}
    n = max(1, len(pool))
    out = []
    for unit in salient_units(question):
        if all(held(t, have) or held(t, around) for t in unit) or unit_held(unit, have) \
                or unit_held(unit, around):
            continue
        if spelt.get(unit) and all(t in have for t in spelt[unit]):
            continue
        if all(sum(held(t, p) for p in pool) / n >= common for t in unit):
            continue
        out.append(" ".join(unit))
    return out


# "what date should the expiry date be based on?" asks which date a rule counts from ("the
# manufacturing date of the oldest batch"), not for a date
_BASIS = re.compile(r"\b(?:based|calculated|counted|derived|measured|reckoned|determined|"
                    r"start(?:s|ed)?|run(?:s)?)\s+(?:on|from|by)\b")


def answer_type(question: str) -> str | None:
    """``amount``, ``number``, ``percent``, ``duration``, ``date``, ``time`` or None, from
    how the question asks: "from what date", "deadline: ...", "when did ..." ask for a
    date (unless they ask what one is based on or counted from: a rule); "when ...", "by
    when" for a time, or as often a condition or an event ("when may a batch be
    released", "before release"); "what percentage" for a share."""
    q = " ".join(question.lower().split())
    if re.search(r"\bhow much\b.*\b(cost|costs|charge|fee|fees|pay|price|money)\b|"
                 r"\bwhat (is|are) the (fee|fees|cost|price)\b|\bhow much does it cost\b", q):
        return "amount"
    if re.search(r"\bhow long\b|\bhow many (days|weeks|months|years|hours)\b|"
                 r"\bwithin how\b|\b(retention|retaining|storage|keeping|holding) "
                 r"(period|time)s?\b", q):
        return "duration"
    if re.search(r"\b(?:what|which) (?:date|year|deadline)\b(?!-)|(?:^|[:–—]\s*|\s-\s)"
                 r"deadline\b|^when (?:did|was|were|had)\b", q) and not _BASIS.search(q):
        return "date"
    if re.search(r"^when\b|\b(?:by|since|until) when\b", q):
        return "time"   # (a condition or an event answers "by when" as often: "before release")
    if re.search(r"\bwhat (?:\w+ )?(?:percentage|percent)\b|\bhow many percent\b", q):
        return "percent"
    if re.search(r"\bhow many\b|\bwhat number\b", q):
        return "number"
    return None


def satisfies(kind: str | None, sentences: Sequence[str]) -> bool:
    """Whether some sentence holds what a question of ``kind`` asks for."""
    if kind is None:
        return True
    text = " ".join(sentences)
    if kind == "amount":
        return bool(_MONEY.search(text))
    if kind == "duration":
        return bool(_DURATION.search(text))
    if kind in ("date", "time"):
        return bool(_TIME.search(text))
    if kind == "percent":
        return bool(_PERCENT.search(text))
    return bool(_NUMBER.search(text))
