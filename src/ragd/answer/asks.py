"""The asks of a question that asks more than one thing.

"How often should the output of a quality risk management process be reviewed under ICH
Q9, and can the review revisit risk acceptance?" asks two things; a sentence answering the
second ("Risk review might include reconsideration of risk acceptance decisions") shares
little with the whole question, and the cross-encoder reading it beside the whole question
scores it low. The extractive reader also reads each ask on its own (:func:`asks`), so a
sentence answering one ask is scored as answering it.

:func:`asks` is pure. The question is cut at sentence ends and where a coordinated question
opens (", and can ...", "... or what is ..."); a piece *asks* when it, or one of its
clauses (after a comma or colon), opens with a question word or an auxiliary verb (after
"and", "so", "but" ...) and it holds at least :data:`ASK_TERMS` content terms. A story's
sentence ("We're making a sterile IMP by filtration.") asks nothing; a lead-in naming the
source ("Under EU GMP, can ...") stays with its ask.
"""

from __future__ import annotations

import re

from ..analysis import analyze
from .terms import QUESTION_WORDS

ASK_TERMS = 2            # content terms a piece names to be an ask of its own

_OPENERS = ("what|which|who|whom|whose|when|where|why|how|is|are|was|were|do|does|did|can|"
            "could|should|must|may|might|will|would|shall|has|have|had")
# a sentence end, or a coordinated question: ", and can the review ...", "or what is ..."
_CUT = re.compile(r"(?<=[?!])\s+|(?<=[a-z0-9)][.])\s+(?=[A-Z])|"
                  rf",?\s+(?:and|or|but|also)\s+(?=(?:{_OPENERS})\b)", re.I)
_LEADS = re.compile(r"^(?:(?:and|so|but|or|also|then|well|ok|okay|now|please|just)\b[\s,]*)+",
                    re.I)
# a question word as a question writes it ("Who", "who"; not "WHO", the authority)
_OPENS = re.compile(rf"^(?:{_OPENERS})\b", re.I)
_ACRONYM = re.compile(r"^[A-Z]{2,}\b")


def _opens(clause: str) -> bool:
    clause = _LEADS.sub("", clause.strip())
    return bool(_OPENS.match(clause)) and not _ACRONYM.match(clause)


def asks(question: str) -> list[str]:
    """The asks of ``question`` in order when it asks two or more things, else [] (see
    the module doc)."""
    out = []
    for piece in _CUT.split(" ".join(question.split())):
        piece = piece.strip(" ,;")
        if not piece or not any(_opens(clause) for clause in re.split(r"[,:;]", piece)):
            continue
        named = {t for t in analyze(piece) if t not in QUESTION_WORDS}
        if len(named) >= ASK_TERMS and piece not in out:
            out.append(piece)
    return out if len(out) >= 2 else []


__all__ = ["ASK_TERMS", "asks"]
