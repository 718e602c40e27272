"""The ``statute`` scheme: Indian bare acts cited as ``Section 420, IPC``.

The normaliser is pure and total: section references (``Sec. 420``, ``section 420``,
``S.420``, ``§ 420``, ``u/s 420``, ``Section 498-A``) become ``Section 420`` /
``Section 498A``, and act names and aliases become their abbreviations (Indian Penal
Code / I.P.C. / IPC → IPC; Code of Criminal Procedure / Cr.P.C. → CrPC; Code of Civil
Procedure / C.P.C. → CPC; Indian Evidence Act / Evidence Act → IEA). Normalising twice
changes nothing. A passage's section id is ``IPC-420`` (``CrPC-438``), so a question
naming "u/s 420 of the Indian Penal Code" reaches exactly that section.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Mapping

from ..errors import UsageError
from .base import Cited, fallback_citation, register_scheme

# Acts: abbreviation -> (full title, year enacted). Aliases (any case, dots and spaces
# ignored) map to the abbreviation.
ACTS: dict[str, tuple[str, int]] = {
    "IPC": ("Indian Penal Code", 1860),
    "CrPC": ("Code of Criminal Procedure", 1973),
    "CPC": ("Code of Civil Procedure", 1908),
    "IEA": ("Indian Evidence Act", 1872),
}
_ALIASES = {
    "IPC": ["indian penal code", "penal code", "i.p.c.", "ipc"],
    "CrPC": ["code of criminal procedure", "criminal procedure code", "cr.p.c.", "crpc",
             "cr p c", "cr. p. c."],
    "CPC": ["code of civil procedure", "civil procedure code", "c.p.c.", "cpc"],
    "IEA": ["indian evidence act", "evidence act", "i.e.a.", "iea"],
}
COURT_RANK = {"supreme court": 0, "high court": 1}

_ALIAS_RE = re.compile(
    r"(?<![\w.])(?:the\s+)?(" + "|".join(sorted(
        (re.escape(a).replace(r"\ ", r"\s*") for names in _ALIASES.values() for a in names),
        key=len, reverse=True)) + r")(?:,?\s*(?:of\s+)?(?:18|19)\d\d)*(?![\w])",
    re.IGNORECASE)
_BY_ALIAS = {re.sub(r"[\s.]", "", a.lower()): abbr for abbr, names in _ALIASES.items()
             for a in names}
_NUM = r"(\d{1,4})(?:-?([A-Za-z]{1,2}))?(?![\w])"
_SECTION_RE = re.compile(
    r"(?<![\w])(?:sections?|secs?\.?|ss?\.|§§?|u/s\.?|under\s+section)\s*" + _NUM,
    re.IGNORECASE)


def act_of(name: str) -> str | None:
    """The abbreviation of an act name or alias, or None."""
    key = re.sub(r"[\s.]", "", str(name).lower())
    key = re.sub(r",?(?:of)?(?:18|19)\d\d$", "", key)
    key = key.removeprefix("the")
    return _BY_ALIAS.get(key)


def normalize_text(text: str) -> str:
    """Section references and act names in canonical form; idempotent."""
    def section(m: re.Match) -> str:
        return f"Section {m.group(1)}{(m.group(2) or '').upper()}"

    def act(m: re.Match) -> str:
        return act_of(m.group(1)) or m.group(0)

    return _ALIAS_RE.sub(act, _SECTION_RE.sub(section, text))


def section_number(raw: Any) -> str:
    """A section number as stored: ``498A``, ``35A`` (a trailing dot or footnote mark gone)."""
    text = str(raw).strip().rstrip(".").replace(" ", "").replace("-", "")
    m = re.fullmatch(r"(\d{1,4})([A-Za-z]{0,2})", text)
    if not m:
        raise UsageError(f"malformed section number {raw!r}")
    return m.group(1) + m.group(2).upper()


def section_id(act: str, section: str) -> str:
    return f"{act}-{section}"


_NAMED_ACT = re.compile(
    r"\b((?:[A-Z][A-Za-z]+\s+){1,6}(?:Act|Code|Sanhita|Adhiniyam|Rules|Regulations))\b")


def find_acts(query: str) -> list[str]:
    """The acts a text names, in order."""
    return list(dict.fromkeys(a for a in (act_of(m.group(1)) for m in _ALIAS_RE.finditer(query))
                              if a))


def unknown_acts(query: str) -> list[str]:
    """Names of acts the text names that are none of :data:`ACTS` ("Companies Act")."""
    out = []
    for m in _NAMED_ACT.finditer(query):
        name = " ".join(m.group(1).split())
        words = name.split()
        if not any(act_of(" ".join(words[i:])) for i in range(len(words))):
            out.append(name)
    return list(dict.fromkeys(out))


def find_sections(query: str) -> list[str]:
    """The section numbers a text names, in order."""
    return list(dict.fromkeys(f"{m.group(1)}{(m.group(2) or '').upper()}"
                              for m in _SECTION_RE.finditer(query)))


@dataclass(frozen=True)
class StatuteScheme:
    name: str = "statute"
    section_field: str = "section_id"
    key_fields: tuple[str, ...] = ()

    def find_refs(self, query: str) -> list[str]:
        """``IPC-420`` for every section named with an act (every act when none is named)."""
        sections = find_sections(query)
        acts = find_acts(query) or list(ACTS)
        return [section_id(a, s) for s in sections for a in acts]

    def rewrite(self, text: str) -> str:
        """The text with its references in canonical form ("S.302" → "Section 302")."""
        return normalize_text(text)

    def find_scopes(self, query: str) -> list[str]:
        """The acts the question names (a passage of another act does not answer it); an
        act the scheme does not know ("Companies Act") is a scope too, which no passage of
        these acts can answer."""
        return find_acts(query) + unknown_acts(query)

    def scope_of(self, passage: Cited) -> str | None:
        act = passage.metadata.get("act")
        return act if isinstance(act, str) and act else None

    def normalize(self, ref: str) -> str:
        acts, sections = find_acts(ref), find_sections(ref)
        if len(acts) == 1 and len(sections) == 1:
            return section_id(acts[0], sections[0])
        m = re.fullmatch(r"\s*([A-Za-z]+)[\s-]+(\d{1,4}[A-Za-z]{0,2})\s*", ref)
        if m and act_of(m.group(1)):
            return section_id(act_of(m.group(1)), section_number(m.group(2)))
        raise UsageError(f"not a statute section reference: {ref!r} (e.g. 'Section 420 IPC')")

    def authority_rank(self, passage: Cited) -> int:
        court = str(passage.metadata.get("court") or "").lower()
        return next((rank for name, rank in COURT_RANK.items() if name in court),
                    len(COURT_RANK))

    def cite(self, passage: Cited, title: str = "") -> str:
        meta = passage.metadata
        act, section = meta.get("act"), meta.get("section")
        if meta.get("doc_type") == "case_law":
            parts = [str(meta.get(k)) for k in ("court", "year") if meta.get(k)]
            return ", ".join([title or str(meta.get("title") or passage.doc_id)] + parts)
        if act and section:
            sub = meta.get("subsection")
            return f"Section {section}{sub or ''}, {act}"
        return fallback_citation(passage, title)

    def fields(self, passage: Cited, title: str = "") -> dict[str, Any]:
        meta: Mapping[str, Any] = passage.metadata
        doc_type = meta.get("doc_type")
        return {"act": meta.get("act"), "section": meta.get("section"),
                "subsection": meta.get("subsection"), "year": meta.get("year"),
                "court": meta.get("court"),
                "source_type": {"bare_act": "Bare Act", "case_law": "Case Law",
                                "amendment": "Amendment",
                                "notification": "Notification"}.get(str(doc_type))}


STATUTE = register_scheme(StatuteScheme())
