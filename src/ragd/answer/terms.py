"""Question terms against the evidence: weights, coverage, and terms the documents lack.

Pure functions over analysed terms (the lexical index's: folded, stop words out,
Snowball stems). A term's weight is its rarity in the retrieved pool (a term in
every candidate tells little), so coverage counts what distinguishes the question.
"""

from __future__ import annotations

import math
import re
from typing import Iterable, Sequence

from ..analysis import analyze

# Words that shape a question but name nothing it is about.
QUESTION_WORDS = frozenset(analyze(
    "what which who whom whose when where why whether how much many long often kind kinds type "
    "types does do did can could "
    "may might must shall should would will need needs needed require requires required "
    "allow allowed allows permit permitted apply applies mean means meaning define defined "
    "definition describe explain tell say says said give list example happen happens get "
    "make use used using under about regarding concerning there any some anyone someone "
    "i me my we our you your they them it its also just please exactly according"))

_CODE = re.compile(r"^(?=.*\d)(?=.*[a-z])[a-z0-9]+$")


def question_terms(question: str) -> list[str]:
    """Distinct content terms of a question, question-shaping words left out."""
    terms = [t for t in dict.fromkeys(analyze(question)) if t not in QUESTION_WORDS]
    return terms or list(dict.fromkeys(analyze(question)))


def weights(terms: Sequence[str], pool: Sequence[set[str]]) -> dict[str, float]:
    """Rarity of each term in ``pool`` (one set of terms per retrieved text), idf-like."""
    n = len(pool)
    out = {}
    for t in terms:
        df = sum(t in p for p in pool)
        out[t] = math.log(1.0 + (n + 1) / (df + 1))
    return out


def coverage(terms: Iterable[str], weight: dict[str, float], have: set[str]) -> float:
    """The weighted share of ``terms`` that ``have`` contains (0 when there are none)."""
    terms = list(terms)
    total = sum(weight.get(t, 1.0) for t in terms)
    if total <= 0:
        return 0.0
    return sum(weight.get(t, 1.0) for t in terms if t in have) / total


def _near(term: str, vocabulary: set[str]) -> bool:
    """A typo of a known term: edit distance 1 (2 for long words), same first letter."""
    limit = 2 if len(term) >= 8 else 1
    if len(term) < 5:
        return False
    for word in vocabulary:
        if word[:1] != term[:1] or abs(len(word) - len(term)) > limit:
            continue
        if _distance(term, word, limit) <= limit:
            return True
    return False


def _distance(a: str, b: str, limit: int) -> int:
    """Levenshtein distance, stopped early past ``limit``."""
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, start=1):
        current = [i] + [0] * len(b)
        for j, cb in enumerate(b, start=1):
            current[j] = min(previous[j] + 1, current[j - 1] + 1,
                             previous[j - 1] + (ca != cb))
        if min(current) > limit:
            return limit + 1
        previous = current
    return previous[-1]


def missing_terms(terms: Sequence[str], vocabulary: set[str]) -> list[str]:
    """Question terms that occur nowhere in ``vocabulary`` (the retrieved pool's terms)
    and are no typo of a term that does, nor a code written without the separators the
    documents use (:func:`held`)."""
    return [t for t in terms if not held(t, vocabulary) and not _near(t, vocabulary)]


_RUNS = re.compile(r"[a-z]+|[0-9]+")


def held(term: str, vocabulary: set[str]) -> bool:
    """Whether ``vocabulary`` holds ``term``, or holds a code written without its separators
    as consecutive pieces cut where letters meet digits ("q8r2" for "Q8(R2)", indexed as
    ``q8``, ``r2``; "iso14644" for "ISO 14644")."""
    if term in vocabulary:
        return True
    runs = _RUNS.findall(term)
    if len(runs) < 2 or "".join(runs) != term:
        return False
    reach = {0}                   # run indexes where a split into known pieces can start
    for start in range(len(runs)):
        if start not in reach:
            continue
        for end in range(start + 1, len(runs) + 1):
            if (start, end) != (0, len(runs)) and "".join(runs[start:end]) in vocabulary:
                reach.add(end)
    return len(runs) in reach


def is_code(term: str) -> bool:
    """A term mixing letters and digits (``5a002``, ``q13``, ``bns``-like codes excluded)."""
    return bool(_CODE.match(term))
