"""The ask of a long question: what the models that read question and passage together
should read when the question comes wrapped in its story.

A user with a real problem writes it out: "I work in a small QC lab where our HPLC data
system only has one login ...; can you explain why regulators object to shared logins on
GMP computerised systems and what they expect instead, since management thinks ...?" The
bundled cross-encoder was trained on short search queries: read with the whole of such a
question it scores every passage far below its floor (around -9 here), the right ones
included, and the answer is refused; read with the ask alone it ranks the passages on
shared logins first, above the floor. Search itself is not the problem (the passages on
shared logins are at the top of the fused candidates either way), so only what reads the
question word by word against a passage gets the focus: the reranker, the evidence
checks and the extractive reader. Short questions are left as they are.

:func:`focus` is pure. The question is cut into pieces at sentence ends, semicolons and
commas; a piece *asks* when it opens (after "so", "and", "but" ...) with a question word,
an auxiliary verb ("can you explain ...", "does FDA ...") or a request ("explain",
"describe", "tell me"), and holds at least two content words besides (a closing "can you
clarify?" names nothing); a relative clause after a comma ("..., which worries our lead";
not "..., where should the plates be placed") is set aside unless it ends in "?" or nothing
else asks. The asking pieces, in order, are the focus; without one, the
pieces carrying an embedded question ("unsure whether that is allowed under ..."); without
those, the whole question. A piece naming the source asked of ("According to FDA's
guidance on ...,", "Under EU GMP Annex 1,"; the profile's ``focus_sources`` say what a source
is called) stays with the ask: the cross-encoder reading
the ask without it scores the very passages it names below its floor. So does the condition
the ask is asked under, joined to it by a comma ("if ..., can we ...?"), when short, or at
any length when the ask's pronoun stands for what it tells of ("if a user signs ..., do
they have to ...?").
"""

from __future__ import annotations

import re
from typing import Collection

from ..text import STOPWORDS, words

_LEADS = {"so", "and", "but", "or", "then", "also", "well", "ok", "okay", "now", "basically",
          "anyway", "please", "just", "quick", "question", "q"}
_OPENERS = {"what", "which", "who", "whom", "whose", "when", "where", "why", "how",
            "is", "are", "was", "were", "do", "does", "did", "can", "could", "should",
            "must", "may", "might", "will", "would", "shall", "has", "have", "had",
            "explain", "describe", "tell", "clarify", "list", "define", "summarise",
            "summarize", "outline", "identify", "confirm", "advise", "help"}
_EMBEDDED = {"whether", "what", "which", "how", "why", "when", "where", "who", "if"}
# after a comma, not asking: a relative clause of the piece before ("..., which worries our
# validation lead"), unless it ends the question with "?"
_RELATIVE = {"which", "who", "whom", "whose", "where", "when"}
_AUX = {"is", "are", "was", "were", "do", "does", "did", "can", "could", "should", "must",
        "may", "might", "will", "would", "shall", "has", "have", "had"}
# words of the ask itself, which name nothing the passages could hold
_ASK_WORDS = _OPENERS | {"you", "me", "us", "i", "we", "it", "this", "that", "please",
                         "exactly", "actually", "really", "know", "understand", "need",
                         "want", "like", "let", "give", "provide", "there", "any"}
# a piece's leading "so", "and", "please" ... (the piece keeps at least one word)
_LEAD_TEXT = re.compile(r"^(?:(?:" + "|".join(sorted(_LEADS)) + r")\b\W*)+(?=\w)", re.I)
# a sentence ends at "?" or "!", or at "." after a lower-case word ("U.S. content" does not);
# a colon ends a lead-in ("Before I push back at the meeting: is ... acceptable?")
_PIECES = re.compile(r"(?<=[?!])\s+|(?<=[a-z0-9)][.])\s+(?=[A-Z])|(?<=[A-Za-z0-9)]:)\s+|;\s*|"
                     r",\s+")


def _content(piece: list[str]) -> int:
    return sum(1 for w in piece if w not in STOPWORDS and w not in _ASK_WORDS)


_SOURCE = (("according", "to"), ("as", "per"), ("per",), ("under",), ("in",))
_PERSONAL = {"i", "we", "our", "my", "me", "us", "you", "your", "ours", "mine"}
_CODE = re.compile(r"^(?=.*\d)(?=.*[a-z])[a-z0-9]+$")   # "q13", "q9": a text's code
NAMES_WITHIN = 4         # words after the preposition within which the text is named


def _designates(piece: str, tokens: list[str], sources: Collection[str]) -> bool:
    """Whether a piece names the text a question asks of ("According to FDA's guidance on
    validating lab test methods", "Under EU GMP Annex 1", "under ICH Q13"): it opens with
    a preposition of source, names a text within its next :data:`NAMES_WITHIN` words (one
    of ``sources``, the profile's words for its documents, a code mixing letters and
    figures, or a section sign) and tells nothing of the asker (no "I", "we", "our" ...):
    "In the EMA guideline on ...", not "Under pressure from QA", "In the Dublin plant" nor
    "In our lab" (the story)."""
    lead = next((lead for lead in _SOURCE if tuple(tokens[:len(lead)]) == lead), None)
    if lead is None or _PERSONAL & set(tokens):
        return False
    named = tokens[len(lead):len(lead) + NAMES_WITHIN]
    return "§" in piece or any(t in sources or _CODE.match(t) for t in named)


_CONDITIONS = {"if", "once", "after", "before", "unless", "whenever", "provided", "until",
               "while", "when", "where"}
CONDITION_WORDS = 16     # a condition this long or shorter stays with its ask
LABEL_WORDS = 6          # a lead-in this long or shorter naming a text stays with the ask


_BACK = {"they", "it", "he", "she", "them", "its", "their"}
BACK_WITHIN = 3          # an ask opening with a pronoun within this many words refers back


def _condition(tokens: list[str], asks_next: bool, refers: bool = False) -> bool:
    """Whether a piece is the condition the ask after it (joined by a comma) is asked
    under: it opens with "if", "once", "when" ..., asks nothing itself, and is short
    ("before designing anything I would like to understand why ..." is the story's) or
    is what the ask's pronoun stands for (``refers``: "if a user signs several records
    during one continuous session ..., do *they* have to enter both ...?" asks nothing
    without it)."""
    return asks_next and bool(tokens) and tokens[0] in _CONDITIONS \
        and (len(tokens) <= CONDITION_WORDS or refers) and not _EMBEDDED & set(tokens[1:])


def _label(piece: str, tokens: list[str]) -> bool:
    """Whether a piece is a short lead-in naming the text asked of ("PIC/S PI 041:", "EU
    GMP Annex 1:"): it ends in a colon, names something, and tells nothing of the asker."""
    return piece.rstrip().endswith(":") and 0 < len(tokens) <= LABEL_WORDS \
        and _content(tokens) >= 1 and not _PERSONAL & set(tokens)


REST_WORDS = 10          # a piece this long or shorter may end an asking sentence
_REASONS = (["because"], ["since"], ["as"], ["given"], ["considering"], ["though"],
            ["although"])


def _rest(pieces: list[str], tokens: list[list[str]], clauses: list[bool],
          relative: list[bool], asking: list[str]) -> set[int]:
    """The pieces that finish an asking piece's sentence after its commas, up to the "?"
    ending it ("How should audit trails be reviewed, and by whom?", "... for an
    authorised, unmodified comparator used in a trial?"), each short, none a relative
    clause, a reason or the asker's own ("..., since management thinks ...?", "..., so I
    can explain it to my team?"): those are the story's."""
    out: set[int] = set()
    for i, piece in enumerate(pieces):
        if piece not in asking or piece.rstrip().endswith("?"):
            continue
        chain = []
        for j in range(i + 1, len(pieces)):
            if not clauses[j] or relative[j] or len(tokens[j]) > REST_WORDS \
                    or _PERSONAL & set(tokens[j]) or tokens[j][:1] in _REASONS:
                break
            chain.append(j)
            if pieces[j].rstrip().endswith("?"):
                out.update(chain)
                break
    return out


def focus(question: str, min_words: int, sources: Collection[str] = ()) -> str:
    """The asking part of ``question`` when it has ``min_words`` words or more (0: never);
    otherwise, or when no piece can be told to ask, the question itself. A piece naming
    one of ``sources`` (words for the documents asked of) stays with the ask."""
    if min_words <= 0 or len(question.split()) < min_words:
        return question
    pieces, clauses, raw = [], [], []   # each piece, whether a comma joins it to the last,
    start, comma = 0, False             # and the piece as written ("or only ...")
    for m in _PIECES.finditer(question):
        piece = question[start:m.start()].strip()
        if piece:
            pieces.append(_LEAD_TEXT.sub("", piece))
            clauses.append(comma)
            raw.append(piece)
        start, comma = m.end(), "," in m.group()
    if question[start:].strip():
        pieces.append(_LEAD_TEXT.sub("", question[start:].strip()))
        clauses.append(comma)
        raw.append(question[start:].strip())
    tokens = [[w.lower() for w in words(p)] for p in pieces]
    opening = [t and t[0] in _OPENERS and _content(t[1:]) >= 2 for t in tokens]
    # ", which worries our lead": a relative clause, unless a verb asks next ("where should
    # ...", "who is ...") or it ends the question; set aside only when something else asks
    relative = [bool(clause and t and t[0] in _RELATIVE and (len(t) < 2 or t[1] not in _AUX)
                     and not p.rstrip().endswith("?"))
                for p, t, clause in zip(pieces, tokens, clauses)]
    embedded = [any(w in _EMBEDDED for w in t[1:]) and _content(t) >= 2 for t in tokens]
    asking = [p for p, o, r in zip(pieces, opening, relative) if o and not r]
    if not asking:
        asking = [p for p, e, r in zip(pieces, embedded, relative) if e and not r]
    if not asking:
        asking = [p for p, o in zip(pieces, opening) if o]
    if not asking:
        asking = [p for p, e in zip(pieces, embedded) if e]
    if not asking or len(asking) == len(pieces):
        return question
    # "According to FDA's guidance on ...,", "PIC/S PI 041:": where to look is part of the
    # ask; so is the condition it is asked under, joined to it by a comma ("once paper
    # records are scanned as true copies, can we discard the originals?")
    rest = _rest(pieces, tokens, clauses, relative, asking)
    kept = [i for i, p in enumerate(pieces) if p in asking
            or _designates(p, tokens[i], sources) or _label(p, tokens[i])
            or _condition(tokens[i], i + 1 < len(pieces) and pieces[i + 1] in asking
                          and clauses[i + 1],
                          i + 1 < len(pieces) and bool(_BACK & set(tokens[i + 1][:BACK_WITHIN])))
            or i in rest]
    if len(kept) == len(pieces):
        return question
    # (the rest of a sentence keeps its comma and its "or", "and": "..., or only X?")
    text = ""
    for i in kept:
        if i in rest:
            text = f"{text.rstrip(' ,;')}, {raw[i].rstrip(' ,;')}"
        else:
            text = f"{text} {pieces[i].rstrip(' ,;')}".strip()
    return text if text.endswith("?") else text.rstrip(".!") + "?"


__all__ = ["focus"]
