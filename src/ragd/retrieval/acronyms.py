"""Acronyms of a query expanded to the long forms the collection itself defines.

Documents define a short form once, in the standard pattern "Long Form Words (LFW)": the
words before the parenthesis whose initials spell it. A query token that looks like an
acronym (2 to 6 letters written in capitals, a plural "s" allowed: "ECs"; or any other
plain token of that length, which then must appear in a document in capitals in
parentheses) is searched lexically, the best hits' texts are read, and the long form
that most of them define is the expansion (ties: alphabetical). Small words (of, and,
the, ...) inside a long form may be skipped or may give a letter; the parts of a
hyphenated word may give one letter each, or the word one letter.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Iterable, Mapping, Sequence

from ..text import STOPWORDS

MIN_LETTERS, MAX_LETTERS = 2, 6
SMALL = frozenset("a an and as at by for from in into of on or the to with".split())
_TOKEN = re.compile(r"[A-Za-z]+(?:'s)?")
_DEFINED = re.compile(r"\(\s*([A-Z][A-Za-z]{1,6})\s*\)")
_BEFORE = re.compile(r"[A-Za-z]+(?:-[A-Za-z]+)*")
_STOP_AT = re.compile(r"[.;:!?()\[\]]")


def acronym_of(token: str) -> str | None:
    """The acronym a query token may be (upper case), or None: 2 to 6 letters, all capitals
    (a plural "s" after them allowed), or any plain word of that length that is no stop
    word (then only a definition in capitals in a document makes it one)."""
    if not token.isalpha() or not token.isascii():
        return None
    core = token[:-1] if len(token) > 2 and token.endswith("s") and token[:-1].isupper() \
        else token
    if not MIN_LETTERS <= len(core) <= MAX_LETTERS:
        return None
    if core.isupper():
        return core
    if token.lower() in STOPWORDS:
        return None
    return core.upper()


def candidates(query: str, ignore: Iterable[str] = ()) -> list[str]:
    """The query's tokens that may be acronyms, as acronyms, first-seen order, without the
    words of ``ignore`` (lower case: question words)."""
    skip = {w.lower() for w in ignore}
    out: list[str] = []
    for token in re.findall(r"[A-Za-z0-9]+", query):
        found = acronym_of(token)
        if found and token.lower() not in skip and found not in out:
            out.append(found)
    return out


def _parts(words: Sequence[str]) -> list[tuple[str, bool]]:
    """Words split at hyphens: (part, whether it continues a hyphenated word)."""
    out: list[tuple[str, bool]] = []
    for w in words:
        for i, p in enumerate(w.split("-")):
            out.append((p, i > 0))
    return out


def _spells(parts: Sequence[tuple[str, bool]], acronym: str) -> bool:
    """Whether the parts' initials spell ``acronym``: the first part gives its first letter,
    every other part gives the next letter, or is skipped when it is a small word or a
    later part of a hyphenated word."""
    if not parts or parts[0][0].lower() in SMALL or parts[0][1]:
        return False
    letters = acronym.lower()

    def walk(i: int, j: int) -> bool:
        if i == len(parts):
            return j == len(letters)
        part, continued = parts[i]
        if j < len(letters) and part[:1].lower() == letters[j] and walk(i + 1, j + 1):
            return True
        return (continued or part.lower() in SMALL) and i > 0 and walk(i + 1, j)
    return walk(0, 0)


def long_forms(text: str, acronym: str) -> list[str]:
    """The long forms ``text`` defines for ``acronym`` ("... Long Form (LF)"), lower case,
    hyphens as spaces (the index splits there too); none for "(a)", "(1)" or "(see
    below)" and the like."""
    out: list[str] = []
    for m in _DEFINED.finditer(text):
        written = m.group(1)
        if written != acronym and written != acronym + "s":
            continue
        before = text[:m.start()]
        stop = max((s.end() for s in _STOP_AT.finditer(before[-200:])), default=0)
        words = _BEFORE.findall(before[-200:][stop:])[-(2 * len(acronym) + 2):]
        for start in range(len(words) - 1, -1, -1):   # the shortest spelling one wins
            chosen = words[start:]
            if _spells(_parts(chosen), acronym):
                form = " ".join(chosen).replace("-", " ").lower()
                if form not in out:
                    out.append(form)
                break
    return out


def best_long_form(texts: Iterable[str], acronym: str) -> str | None:
    """The long form most of ``texts`` define for ``acronym`` (ties: alphabetical), or None."""
    counts: Counter[str] = Counter()
    for text in texts:
        counts.update(set(long_forms(text, acronym)))
    if not counts:
        return None
    return min(counts, key=lambda form: (-counts[form], form))


_NAME_WORD = re.compile(r"[A-Za-z]+")


def named_long_form(names: Iterable[str], acronym: str) -> str | None:
    """The long form document names (file names, titles) spell for ``acronym``, for one no
    text defines: as many consecutive words as it has letters, each giving its initial, none
    a small word or a single letter ("guidance-computer-software-assurance-production.pdf":
    CSA → "computer software assurance"; not "part i" for PI, nor "products in clinical"
    for PIC: a name has no parenthesis to say which words are meant, so the reading is
    strict); the form most names hold (ties: alphabetical), or None."""
    return _initial_runs(names, acronym, 1)


def _initial_runs(texts: Iterable[str], acronym: str, least: int) -> str | None:
    """The run of consecutive words spelling ``acronym`` by their initials, none a small
    word or a single letter, that most ``texts`` hold (at least ``least``; ties:
    alphabetical), lower case, or None."""
    counts: Counter[str] = Counter()
    for words in (_words(text) for text in texts):
        counts.update(_runs(words, acronym))
    return _most(counts, least)


def _words(text: str) -> list[str]:
    return [w.lower() for w in _NAME_WORD.findall(text)]


def _runs(words: Sequence[str], acronym: str, inner: frozenset[str] = frozenset()) -> set[str]:
    """The runs of consecutive ``words`` spelling ``acronym`` by their initials, none a
    small word or a single letter, except a word of ``inner`` between the first and the
    last ("out of trend" for OOT)."""
    n, letters = len(acronym), acronym.lower()
    if not n:
        return set()
    return {" ".join(words[i:i + n]) for i in range(len(words) - n + 1)
            if words[i][0] == letters[0]
            and all(len(w) > 1 and (w not in SMALL or (0 < j < n - 1 and w in inner))
                    and w[0] == letter
                    for j, (w, letter) in enumerate(zip(words[i:i + n], letters)))}


def _most(counts: Counter[str], least: int) -> str | None:
    kept = {form: c for form, c in counts.items() if c >= least}
    return min(kept, key=lambda form: (-kept[form], form)) if kept else None


# a small word that gives its letter inside a long form written out: "out of trend" (OOT),
# "certificate of analysis" (COA), "bill of materials" (BOM)
INNER = frozenset({"of"})
WRITTEN_LEAST = 2        # passages writing a long form out before it reads an acronym
WRITTEN_MOST = 8         # acronyms of one question read so, at most
_CLAUSE = re.compile(r"[.;:!?()\[\]\n]")


def written_out(question: str, texts: Sequence[str], known: Iterable[str] = ()) -> str:
    """The question with each acronym written in capitals (3 to 6 letters) that ``texts``
    never write, but whose long form at least :data:`WRITTEN_LEAST` of them write out
    (consecutive words of one clause, each giving its initial, none a single letter nor a
    small word, bar an "of" inside: "out of trend" for OOT), preceded by that long form as a
    document introduces one: "which std must a device mfr's QMS comply with?" -> "...
    quality management system (QMS) comply with?". The user abbreviates what the documents
    spell out; read so, the acronym is no term the documents lack. The reading is strict
    (:func:`named_long_form`'s, but for that "of"): no parenthesis says which words are
    meant. At most :data:`WRITTEN_MOST` acronyms are tried; one the question already
    follows its long form with, or one of ``known`` (read otherwise already: a long form
    the documents define or their names spell), is left as it is."""
    return write_out(question, written_forms(question, texts, known))


def written_forms(question: str, texts: Sequence[str],
                  known: Iterable[str] = ()) -> dict[str, str]:
    """{acronym: long form} for the question's acronyms :func:`written_out` reads, to write
    into it or another reading of the same question (:func:`write_out`)."""
    tokens = list(dict.fromkeys(re.findall(r"\b[A-Z]{3,6}\b", question)))
    if not tokens:
        return {}
    held = {w for text in texts for w in re.findall(r"[A-Za-z]+", text)}
    skip = set(known)
    wanted = [t for t in tokens
              if t not in skip and not {t, t.lower(), t.capitalize()} & held][:WRITTEN_MOST]
    if not wanted:
        return {}
    # each passage's clauses, split into words once (a run never crosses a clause's end)
    passages = [[_words(part) for part in _CLAUSE.split(text)] for text in texts]
    forms: dict[str, str] = {}
    for token in wanted:
        counts: Counter[str] = Counter()
        for clauses in passages:   # a passage counts once, whichever clause spells it
            counts.update(set().union(*(_runs(words, token, INNER) for words in clauses)))
        form = _most(counts, WRITTEN_LEAST)
        if form:
            forms[token] = form
    return forms


def write_out(question: str, forms: Mapping[str, str]) -> str:
    """The question with each acronym of ``forms`` preceded by its long form, where the
    question does not already write it so: "... QMS ..." -> "... quality management system
    (QMS) ..."."""
    for token, form in forms.items():
        if not re.search(rf"\b{re.escape(form)}\W+{token}\b", question, re.I):
            question = re.sub(rf"\b{token}\b", f"{form} ({token})", question, count=1)
    return question


def short_forms(query: str, texts: Iterable[str], limit: int = 3) -> dict[str, str]:
    """The acronyms ``texts`` define for long forms the query spells out word for word
    (acronym -> long form), those defined by the most texts first (ties: alphabetical), at
    most ``limit``; none the query already holds."""
    said = f" {' '.join(re.findall(r'[a-z0-9]+', query.lower()))} "
    held = {t.upper() for t in re.findall(r"[A-Za-z]+", query)}
    counts: Counter[tuple[str, str]] = Counter()
    for text in texts:
        found: set[tuple[str, str]] = set()
        for m in _DEFINED.finditer(text):
            written = m.group(1)
            acronym = written[:-1] if written.endswith("s") and written[:-1].isupper() \
                else written
            if not acronym.isupper() or acronym in held:
                continue
            for form in long_forms(text, acronym):
                if len(form.split()) > 1 and f" {form} " in said:
                    found.add((acronym, form))
        counts.update(found)
    ranked = sorted(counts, key=lambda pair: (-counts[pair], pair))
    out: dict[str, str] = {}
    for acronym, form in ranked:
        if acronym not in out and len(out) < limit:
            out[acronym] = form
    return out


_RULES_CLAUSE = re.compile(r"^\s*(?:under|per|as\s+per|according\s+to|in\s+line\s+with|"
                           r"pursuant\s+to)\s+[^,;?]{1,120},\s*", re.I)


def used_short_forms(query: str, passages: Sequence[tuple[str, str]],
                     limit: int = 3) -> dict[str, str]:
    """Acronyms the passages use without defining them there, for long forms the query
    spells out (acronym -> long form): a token of 2 to 6 capitals, no stop word, whose letters are the initials of two or more consecutive words of the query, used in a
    passage of a document (``passages``: (document, text)) whose retrieved passages also
    write that run of words out ("CM" in ICH Q13's "RTRT is not a regulatory requirement for
    CM implementation", its passages elsewhere writing "continuous manufacturing"). Those
    used by the most documents first (ties: alphabetical), at most ``limit``; none the query
    holds, nor one for words of a clause naming the rules the question is asked under
    ("Under WHO good distribution practices, may ...": the passages' "GDP" names those
    rules, not what the question asks about)."""
    words = _words(_RULES_CLAUSE.sub("", query, count=1))
    held = {t.upper() for t in re.findall(r"[A-Za-z]+", query)}
    uses: dict[str, set[str]] = {}
    wrote: dict[str, str] = {}
    for doc, text in passages:
        wrote[doc] = wrote.get(doc, "") + " " + " ".join(_words(text)) + " "
        for token in set(re.findall(r"\b[A-Z]{2,6}\b", text)):
            if token not in held and token.lower() not in STOPWORDS:
                uses.setdefault(token, set()).add(doc)
    counts: Counter[tuple[str, str]] = Counter()
    for token, docs in uses.items():
        for run in _runs(words, token, INNER):
            if len(run.split()) >= 2:
                counts[(token, run)] = sum(f" {run} " in wrote[d] for d in docs)
    ranked = sorted((pair for pair in counts if counts[pair]), key=lambda pair: (-counts[pair], pair))
    out: dict[str, str] = {}
    for token, run in ranked:
        if token not in out and run not in out.values() and len(out) < limit:
            out[token] = run
    return out


def annotate(query: str, forms: dict[str, str]) -> str:
    """The query with each acronym written after the first place it spells out the long
    form ("... continuous manufacturing (CM)?"), as documents introduce one."""
    for acronym, form in forms.items():
        query = _written_after(query, form, acronym)
    return query


def annotate_synonyms(query: str, forms: dict[str, str],
                      rules: Mapping[str, Sequence[str]]) -> str:
    """:func:`annotate`, and a phrase of the query that an expansion rule reads as a long
    form (``rules``: phrase -> terms, e.g. "continuous processing" -> "continuous
    manufacturing") followed by that long form's acronym too ("continuous processing
    (CM)"): the documents write the acronym, the question a synonym of what it stands for."""
    query = annotate(query, forms)
    for phrase, terms in rules.items():
        said = {t.lower() for t in terms}
        for acronym, form in forms.items():
            if form.lower() in said and not re.search(rf"\({re.escape(acronym)}\)", query):
                query = _written_after(query, phrase, acronym)
    return query


def spell_after(query: str, forms: Mapping[str, str]) -> str:
    """The query with each acronym's long form after the first place it writes it in
    capitals ("CSA (computer software assurance) definition", "CSAs (...)"): for an
    acronym no text defines, whose passages say what it stands for in full."""
    for acronym, form in forms.items():
        m = re.search(rf"\b{re.escape(acronym)}s?\b", query)
        if m:
            query = f"{query[:m.end()]} ({form}){query[m.end():]}"
    return query


def _written_after(query: str, phrase: str, acronym: str) -> str:
    """The query with "(acronym)" after the first place it says ``phrase`` (as is without)."""
    words = [re.escape(w) for w in phrase.split()]
    m = re.search(r"\b" + r"[\s-]+".join(words) + r"\b", query, re.I)
    return f"{query[:m.end()]} ({acronym}){query[m.end():]}" if m else query


__all__ = ["acronym_of", "annotate", "annotate_synonyms", "best_long_form", "candidates",
           "long_forms", "named_long_form", "short_forms", "spell_after", "write_out",
           "written_forms", "written_out"]
