"""Lists in the extractive reader: which sentence introduces one, its items in its passage and
on into the document's next passage in the context (chunks overlap: the repeated end is
skipped). Pure functions over the facts' sentences.
"""

from __future__ import annotations

import re
from typing import Callable, Mapping, Sequence

from .sentences import BULLETS, spans
from .shapes import fragment
from .types import Fact, Pick

Sentences = Mapping[tuple[str, int], tuple[str, bool]]
"""Every sentence of the facts by (fact key, position): its text and whether it is an item."""

_FOLLOWING = re.compile(r"\b(?:the\s+following(?!\s+(?:day|days|week|month|year|morning|"
                        r"shift)\b)|as\s+follows)\b", re.I)


def opens_list(text: str, key: str, position: int, sentences: Sentences) -> bool:
    """Whether a sentence introduces a list: it ends in a colon ("These four elements
    are:"), or, not an item itself, it announces one ("... should include the following
    information.") and an item comes next."""
    if text.endswith(":"):
        return True
    here, after = sentences.get((key, position)), sentences.get((key, position + 1))
    return bool(_FOLLOWING.search(text)) and after is not None and after[1] \
        and here is not None and not here[1]


def _bare(text: str) -> str:
    """The words and marks of a text, without bullets (a span leaves out the bullet before
    it), white space normalised."""
    return " ".join(text.translate(_NO_BULLETS).split())


_NO_BULLETS = str.maketrans({ch: " " for ch in BULLETS})


def next_passages(facts: Sequence[Fact]) -> dict[str, tuple[Fact, int]]:
    """{fact key: (the fact whose passage goes on from it, the position there its own text
    starts)}: the document's next chunk, read past its opening sentences that repeat the
    end of the passage before (chunks overlap): together, a suffix of that passage; or
    past its opening fragment (the tail of a sentence, in lower case) that the passage
    before holds, when the overlap ends inside a sentence."""
    by_chunk = {(f.evidence.doc_id, f.evidence.chunk_index): f for f in facts}
    out: dict[str, tuple[Fact, int]] = {}
    for f in facts:
        nxt = by_chunk.get((f.evidence.doc_id, f.evidence.chunk_index + 1))
        if nxt is None:
            continue
        before, joined, position = _bare(f.quote), "", 0
        parts = spans(nxt.quote)
        for count, (start, end) in enumerate(parts, start=1):
            joined = _bare(f"{joined} {nxt.quote[start:end]}")
            if len(joined) > len(before):
                break
            if before.endswith(joined):
                position = count          # the longest opening run the passage ends with
        if position == 0 and parts:       # ... or a sentence's tail the passage holds
            head = nxt.quote[parts[0][0]:parts[0][1]]
            if fragment(head) and _bare(head) in before:
                position = 1
        out[f.key] = (nxt, position)
    return out


def list_items(intro: Pick, items: Sentences, room: int,
                onward: Mapping[str, tuple[Fact, int]] | None = None) -> list[Pick]:
    """The items after a list's introduction (at most ``room``), while they are bulleted,
    labelled or run on from the one before (";", ",", "and", "or"): in its passage, and,
    with ``onward`` (:func:`next_passages`), in the passages it goes on in when a passage
    ends inside the list."""
    out: list[Pick] = []
    last = intro.text
    fact, position = intro.fact, intro.position + 1
    while len(out) < room:
        whole = False
        if (fact.key, position) not in items and onward and fact.key in onward:
            fact, position = onward[fact.key]
            text = items.get((fact.key, position), ("", False))[0]
            if out and text.startswith(out[-1].text) and text != out[-1].text:
                out.pop()          # an item the passage's end cut, whole in the next one
                whole = True
        text, item = items.get((fact.key, position), ("", False))
        if not text or not (item or whole or last.endswith((":", ";", ",", " and", " or"))):
            break
        anchor = None if fact is intro.fact else (intro.fact.key, intro.position + len(out) + 1)
        out.append(Pick(fact, text, position, intro.coverage, 0.0, anchor=anchor))
        last = text
        position += 1
    return out


ITEMS_BACK = 8
"""How far back (in sentences) a picked list item looks for the sentence introducing it."""


def introduction(item: Pick, items: Sentences,
                  at: Mapping[tuple[str, int], tuple], opens: Callable[[Pick], bool]
                  ) -> Pick | None:
    """The sentence introducing a picked item's list ("... can be considered where
    justified, for example:"), when only items stand between them in the passage: an item
    read without it says nothing of what it lists."""
    for back in range(1, ITEMS_BACK + 1):
        key = (item.fact.key, item.position - back)
        if key not in items:
            return None
        if items[key][1]:
            continue
        row = at.get(key)
        if row is None:
            return None
        intro = Pick(row[0], row[1], row[2], row[3], 0.0)
        return intro if opens(intro) else None
    return None


__all__ = ["Sentences", "introduction", "list_items", "next_passages", "opens_list"]
