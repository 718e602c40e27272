"""Query variants learned from the collection: misspelt words corrected against its
vocabulary (:mod:`.spelling`), hyphenated words also searched as the collection writes
them solid ("mix-ups" beside "mixups"), acronyms followed by the long forms its documents
define (:mod:`.acronyms`), or, for one written in capitals that no text defines, the long form
the documents' names spell ("CSA" in a question, "guidance-computer-software-assurance-
....pdf": computer software assurance). Settings ``retrieval.spelling``,
``retrieval.acronyms`` and ``retrieval.acronym_names`` (where documents are files whose
names say what they are; a collection of sections titled by their headings spells "EU"
as "end uses").

What is learned is remembered per collection state (store, collection, data version), so
the vocabulary is built and an acronym looked up once until the next write. Stores whose
snapshots cannot list their chunks' texts (``search_texts``: the PostgreSQL store, whose
BM25 tables hold hashed terms only) get no spelling correction; acronyms need only a
lexical search and the hits' texts, which every store gives.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any, Mapping

from ..analysis import _stem
from ..collection import Collection
from ..types import search_text
from . import acronyms, spelling

ACRONYM_HITS = 100      # lexical hits of an acronym whose texts are read for its definition:
                        # it is defined once, often in a long chunk that BM25 ranks low for
                        # the short form alone (30 missed "OOS": first definition at 53)
MAX_ACRONYMS = 6        # query tokens looked up as acronyms, at most
MAX_NAMED = 5_000       # documents whose names are read for an acronym no text defines
_STATES = 4             # collection states remembered

_lock = threading.Lock()
_vocabularies: dict[tuple, spelling.Vocabulary | None] = {}
_forms: dict[tuple, str | None] = {}
_names: dict[tuple, tuple[str, ...]] = {}


@dataclass(frozen=True)
class Learned:
    """The query as the collection would word it, and what changed."""

    query: str                                   # corrected, long forms appended
    corrected: str = ""                          # corrected only (what the answer reads)
    corrections: Mapping[str, str] = field(default_factory=dict)   # misspelt -> word
    long_forms: Mapping[str, str] = field(default_factory=dict)    # acronym -> long form
    named_forms: Mapping[str, str] = field(default_factory=dict)   # ... spelled by names only
    joined: Mapping[str, str] = field(default_factory=dict)   # "mix-ups" -> "mixups"

    @property
    def changed(self) -> bool:
        return bool(self.corrections or self.long_forms or self.joined)


def _remember(cache: dict, key: tuple, value: Any) -> None:
    states = list(dict.fromkeys(k[0] for k in cache))
    if key[0] not in states and len(states) >= _STATES:
        for k in [k for k in cache if k[0] == states[0]]:
            del cache[k]
    cache[key] = value


def _vocabulary(state: tuple, snap: Any) -> spelling.Vocabulary | None:
    with _lock:
        if (state,) in _vocabularies:
            return _vocabularies[(state,)]
    texts = getattr(snap, "search_texts", None)
    vocab = spelling.build(texts()) if texts is not None else None
    with _lock:
        _remember(_vocabularies, (state,), vocab)
    return vocab


def _long_form(state: tuple, acronym: str, snap: Any) -> str | None:
    """The long form the collection's texts define for ``acronym`` (read in ``snap``)."""
    with _lock:
        if (state, acronym) in _forms:
            return _forms[(state, acronym)]
    hits = snap.lexical_search([acronym.lower()], ACRONYM_HITS)
    chunks = snap.get_chunks([h.key for h in hits]) if hits else {}
    texts = [search_text(s.chunk.context, s.chunk.text) for s in chunks.values()]
    form = acronyms.best_long_form(sorted(texts), acronym)
    with _lock:
        _remember(_forms, (state, acronym), form)
    return form


def _named_form(state: tuple, acronym: str, coll: Collection) -> str | None:
    """The long form the collection's document names spell for ``acronym`` (ids as their
    file names without folders and extension, and titles; none past :data:`MAX_NAMED`
    documents). Read outside any snapshot: the store lists its documents itself."""
    with _lock:
        names = _names.get((state,))
    if names is None:
        records = coll.store.list_documents(coll.name)
        names = () if len(records) > MAX_NAMED else tuple(sorted(
            name for r in records for name in (PurePosixPath(r.doc_id).stem, r.title) if name))
        with _lock:
            _remember(_names, (state,), names)
    return acronyms.named_long_form(names, acronym)


def learn(query: str, coll: Collection, settings: Mapping[str, Any],
          ignore: frozenset[str] = frozenset()) -> Learned:
    """The query with its misspelt words corrected (``settings["spelling"]``) and the long
    forms of its acronyms appended (``settings["acronyms"]``); ``ignore``: index terms of
    words never taken for acronyms (question words)."""
    use_spelling = bool(settings.get("spelling", False))
    use_acronyms = bool(settings.get("acronyms", False))
    if not (use_spelling or use_acronyms):
        return Learned(query, query)
    fixes: dict[str, str] = {}
    joined: dict[str, str] = {}
    forms: dict[str, str] = {}
    named: dict[str, str] = {}
    unknown: list[str] = []
    text = query
    with coll.store.snapshot(coll.name) as snap:
        state = (coll.store.url, coll.name, snap.data_version)
        if use_spelling:
            vocab = _vocabulary(state, snap)
            if vocab is not None:
                fixes = spelling.corrections(query, vocab)
                text = spelling.rewrite(query, fixes)
                joined = spelling.joined_forms(text, vocab)
        if use_acronyms:
            said = text.lower()
            wanted = [a for a in acronyms.candidates(text)
                      if _stem(a.lower()) not in ignore][:MAX_ACRONYMS]
            for acronym in wanted:
                form = _long_form(state, acronym, snap)
                if form is None:
                    unknown.append(acronym)
                elif form not in said:
                    forms[acronym] = form
    # one no text defines, written in capitals and no designation before a number ("PI
    # 011-3", "TRS 1010"): the long form the documents' names spell
    for acronym in unknown if settings.get("acronym_names", False) else ():
        if re.search(rf"\b{acronym}s?\b(?!\s*\d)", text):
            form = _named_form(state, acronym, coll)
            if form and form not in text.lower():
                forms[acronym] = named[acronym] = form
    corrected = text
    if forms or joined:   # (the solid forms searched beside the hyphenated ones)
        text = " ".join([text.rstrip(), *joined.values(), *forms.values()])
    return Learned(text, corrected, fixes, forms, named, joined)


__all__ = ["ACRONYM_HITS", "Learned", "learn"]
