"""Canonical EAR identifiers (retrieval-corpus.v1): normalise, inspect, cite, find in text.

A canonical id is ``EAR-`` + a 3-digit part + optional ``.N`` segments + optional
parenthesised paragraph labels, each all lowercase letters or all digits
(``EAR-736.2(b)(1)``, ``EAR-740.9(a)(2)(ii)``), optionally followed by a chunk
suffix ``#`` + ``[a-z0-9][a-z0-9:._-]*`` (``EAR-736.2(b)#p0001``).

Normalisation decisions (the contract is silent on these):

- Accepted surface forms: ``EAR-736.2``, ``EAR 736.2``, ``ear - 736.2``; ``15 CFR 736.2``,
  ``15 C.F.R. § 736.2``; ``§ 736.2``, ``§§ 736.2`` (one id only), ``Sec. 736.2``,
  ``section 736.2``; bare ``736.2(b)``; part-level ``EAR-736`` / ``15 CFR part 736``.
  Whitespace (also non-breaking) may surround the prefix and the parentheses
  (``§736.2 ( b )``); it may not split a number or touch ``#``.
- Paragraph labels are lowercased (``(B)`` -> ``(b)``, ``(IV)`` -> ``(iv)``), as the
  contract says; a label mixing letters and digits (``(a1)``) is refused.
- An uppercase chunk suffix is **refused**, not lowercased: the suffix is an opaque key
  chosen by the producer and the contract says it MUST be lowercase; folding it could
  merge two distinct ids (``#pA``, ``#pa``).
- Refused: a bare number (``736``), ``§ 736`` without a section, a part not of 3 digits
  (``EAR-73.2``), another CFR title (``14 CFR 1.1``), two ids, unbalanced or empty
  parentheses, trailing words. The dot segments and paragraph labels are not range
  checked (the contract's pattern does not limit them).
- Containment (``parent_of``) follows paragraph labels only: a section (``EAR-736.2``)
  is a root, and a chunk's container is its section id (``EAR-736.2(b)#p0001`` ->
  ``EAR-736.2(b)``).
"""

from __future__ import annotations

import re

from ..errors import UsageError

__all__ = [
    "CANONICAL_PATTERN", "SECTION_PATTERN", "SUFFIX_PATTERN", "InvalidIdError", "ancestors",
    "cfr_citation", "find_section_refs", "is_canonical", "is_canonical_section", "is_container",
    "normalize_id", "parent_of", "part_of", "section_of",
]


class InvalidIdError(UsageError, ValueError):
    """A text that is not an EAR id; ``reason`` says why."""

    def __init__(self, text: object, reason: str) -> None:
        super().__init__(f"invalid EAR id {text!r}: {reason}")
        self.text = text
        self.reason = reason


_SECTION_BODY = r"EAR-[0-9]{3}(?:\.[0-9]+)*(?:\((?:[a-z]+|[0-9]+)\))*"
_SUFFIX_BODY = r"[a-z0-9][a-z0-9:._-]*"
# ``(?!\n)$`` ends the string in Python and in ECMA-262 alike (a bare ``$`` also matches before
# a final newline in Python); the JSON Schema uses these exact strings.
SECTION_PATTERN = re.compile(rf"^{_SECTION_BODY}(?!\n)$")
"""A canonical section id (what ``section_id`` holds): no ``#suffix``."""
CANONICAL_PATTERN = re.compile(rf"^{_SECTION_BODY}(?:#{_SUFFIX_BODY})?(?!\n)$")
"""A canonical document id (what ``doc_id`` and ``parent_id`` hold): section id + optional suffix."""
SUFFIX_PATTERN = re.compile(rf"^{_SUFFIX_BODY}(?!\n)$")
"""A chunk suffix, the part after ``#``."""

_WORD_SECTION = r"(?ai:sec(?:tion)?s?)\.?"
_CFR = r"15\s*(?ai:c\.?\s*f\.?\s*r\.?)"
_ID = re.compile(
    r"(?:(?P<ear>(?ai:ear)\s*-?\s*)"
    rf"|(?P<cfr>{_CFR}\s*(?:(?P<cfr_mark>§§?|{_WORD_SECTION})\s*|(?P<cfr_part>(?ai:part))\s+)?)"
    rf"|(?P<mark>(?:§§?|{_WORD_SECTION})\s*))?"
    r"(?P<part>[0-9]+)(?P<dots>(?:\.[0-9]+)*)"
    r"(?P<groups>(?:\s*\(\s*[A-Za-z0-9]+\s*\))*)")
_GROUP = re.compile(r"\(\s*([A-Za-z0-9]+)\s*\)")
_LABEL = re.compile(r"[a-z]+|[0-9]+")
_OTHER_TITLE = re.compile(r"\b([0-9]+)\s*(?ai:c\.?\s*f\.?\s*r)\b")
_NUMBER = re.compile(r"[0-9]{3}\.[0-9]")


def _refuse(text: object, reason: str) -> InvalidIdError:
    return InvalidIdError(text, reason)


def _check_suffix(text: str, suffix: str) -> None:
    if not suffix:
        raise _refuse(text, "nothing after '#' (a chunk suffix is required after '#')")
    if SUFFIX_PATTERN.match(suffix):
        return
    if SUFFIX_PATTERN.match(suffix.lower()):
        raise _refuse(text, f"chunk suffix {suffix!r} must be lowercase (uppercase is refused, "
                      "not folded)")
    raise _refuse(text, f"chunk suffix {suffix!r} must match [a-z0-9][a-z0-9:._-]*")


def _diagnose(text: str, head: str) -> str:
    """Why ``head`` is not an id (the regex said no; find the most useful reason)."""
    title = _OTHER_TITLE.search(head)
    if title and title.group(1) != "15":
        return f"title {title.group(1)} of the CFR is not the EAR (15 CFR 730-774)"
    if head.count("(") != head.count(")"):
        return "unbalanced parentheses"
    if re.search(r"\(\s*\)", head):
        return "empty parentheses"
    if len(_NUMBER.findall(head)) > 1:
        return "more than one id (use find_section_refs for free text)"
    if re.search(r"\([^()]*[^A-Za-z0-9()\s][^()]*\)", head):
        return "a paragraph label holds letters or digits only, like (b), (1), (ii)"
    return ("not an EAR id (expected a form like 'EAR-736.2(b)', '15 CFR 736.2', '§ 736.2(b)' "
            "or '736.2(b)')")


def normalize_id(text: str) -> str:
    """The canonical form of an EAR id written in any accepted form; :class:`InvalidIdError`
    (with the reason) for anything else. Canonical ids come back unchanged."""
    if not isinstance(text, str):
        raise _refuse(text, f"expected a string, got {type(text).__name__}")
    if CANONICAL_PATTERN.match(text):
        return text
    stripped = text.strip()
    if not stripped:
        raise _refuse(text, "empty")
    head, hash_sign, suffix = stripped.partition("#")
    if hash_sign:
        if head != head.rstrip():
            raise _refuse(text, "whitespace before '#'")
        _check_suffix(text, suffix)
    match = _ID.fullmatch(head)
    if match is None:
        raise _refuse(text, _diagnose(text, head))
    part, dots = match.group("part"), match.group("dots")
    if len(part) != 3:
        raise _refuse(text, f"the part number {part!r} must have exactly 3 digits (like 736)")
    if match.group("cfr_part") and (dots or match.group("groups")):
        raise _refuse(text, "'part' must be followed by a part number only (like 'part 736')")
    if not dots and (match.group("mark") or match.group("cfr_mark")):
        raise _refuse(text, f"no section number after the section mark (expected e.g. "
                      f"'§ {part}.1')")
    if not dots and not (match.group("ear") or match.group("cfr")):
        raise _refuse(text, f"a bare number is not an id (write 'EAR-{part}' or "
                      f"'15 CFR part {part}' for the part)")
    labels = []
    for raw in _GROUP.findall(match.group("groups")):
        label = raw.lower()
        if not _LABEL.fullmatch(label):
            raise _refuse(text, f"paragraph label ({raw}) mixes letters and digits")
        labels.append(f"({label})")
    canonical = f"EAR-{part}{dots}{''.join(labels)}"
    return f"{canonical}#{suffix}" if hash_sign else canonical


def is_canonical(doc_id: object) -> bool:
    """Whether ``doc_id`` is a canonical document id (section id + optional ``#suffix``)."""
    return isinstance(doc_id, str) and CANONICAL_PATTERN.match(doc_id) is not None


def is_canonical_section(section_id: object) -> bool:
    """Whether ``section_id`` is a canonical section id (no ``#suffix``)."""
    return isinstance(section_id, str) and SECTION_PATTERN.match(section_id) is not None


def _canonical(doc_id: str) -> str:
    if not is_canonical(doc_id):
        raise _refuse(doc_id, "not a canonical id (normalize_id it first)")
    return doc_id


def section_of(doc_id: str) -> str:
    """The section id of a canonical doc id: the ``#suffix`` stripped."""
    return _canonical(doc_id).partition("#")[0]


def part_of(doc_id: str) -> str:
    """The 3-digit part of a canonical id (``EAR-736.2(b)`` -> ``"736"``)."""
    return _canonical(doc_id)[4:7]


def _parent(doc_id: str) -> str | None:
    """``parent_of`` for an id known to be canonical: string operations only."""
    section, hash_sign, _ = doc_id.partition("#")
    if hash_sign:
        return section
    if not section.endswith(")"):
        return None
    return section[:section.rindex("(")]


def parent_of(doc_id: str) -> str | None:
    """The immediate container of a canonical id: one paragraph label up, a chunk's section,
    ``None`` for a section (``EAR-736.2(b)(1)`` -> ``EAR-736.2(b)`` -> ``EAR-736.2`` -> None)."""
    return _parent(_canonical(doc_id))


def ancestors(doc_id: str) -> list[str]:
    """Every container of a canonical id, nearest first (``parent_of`` repeated)."""
    out: list[str] = []
    parent = _parent(_canonical(doc_id))
    while parent is not None:
        out.append(parent)
        parent = _parent(parent)
    return out


def is_container(parent: str, doc_id: str) -> bool:
    """For two canonical ids: whether ``parent`` is one of ``ancestors(doc_id)`` (a string
    test, no parsing: the validator runs it on every line)."""
    return ("#" not in parent and len(doc_id) > len(parent) and doc_id.startswith(parent)
            and doc_id[len(parent)] in "(#")


def cfr_citation(doc_id: str) -> str:
    """The CFR citation of a canonical id (``EAR-736.2(b)`` -> ``15 CFR 736.2(b)``); a chunk
    cites its section, a part-level id ``EAR-736`` is ``15 CFR part 736``."""
    section = section_of(doc_id)
    body = section[4:]
    return f"15 CFR part {body}" if len(body) == 3 else f"15 CFR {body}"


# -- references in free text ---------------------------------------------------------------
_REF_NUMBER = (r"(?P<num>[0-9]{3}(?:\.[0-9]+)+)(?![0-9])"
               r"(?P<groups>(?:\(\s*(?:[0-9]{1,3}|[a-z]{1,5}|[A-Z]{1,5})\s*\))*)")
_REF = re.compile(
    r"(?:(?<![A-Za-z0-9])(?P<marker>(?ai:ear)\s*-\s*|(?ai:ear)\s+"
    rf"|{_CFR}\s*(?:(?P<cfr_plural>§§|(?ai:sections|secs)\.?)\s*|(?:§|{_WORD_SECTION})\s*)?"
    rf"|(?P<plural>§§|(?ai:sections|secs)\.?)\s*|§\s*|{_WORD_SECTION}\s*)"
    r"|(?<![\w.$/-]))" + _REF_NUMBER)
_REF_LIST_ITEM = re.compile(
    r"\s*(?:,|;|(?ai:and|or|through|to)\b|[-–—])\s*(?:(?ai:and|or)\s+)?(?:§\s*)?" + _REF_NUMBER)
EAR_PARTS = range(730, 775)
"""Parts of the EAR (15 CFR 730-774): a bare number in free text is read as a section of
these parts only, so that ``costs 100.50`` is not a reference."""


def _ref_id(match: re.Match[str]) -> str:
    labels = "".join(f"({g.lower()})" for g in _GROUP.findall(match.group("groups")))
    return f"EAR-{match.group('num')}{labels}"


def find_section_refs(text: str) -> list[str]:
    """Canonical ids of the section references in free text, in order of appearance, without
    repeats: ``15 CFR 740.9``, ``§ 744.21(a)``, ``§§ 740.2 and 740.3``, ``EAR-742.4``,
    ``Sec. 740.2``, ``section 736.2(b)`` and bare ``736.2(b)`` (bare numbers only in the EAR
    parts 730-774). Part references (``part 740``) and chunk suffixes are not returned."""
    found: dict[str, None] = {}
    for match in _REF.finditer(text):
        if match.group("marker") is None and int(match.group("num")[:3]) not in EAR_PARTS:
            continue
        found.setdefault(_ref_id(match), None)
        if match.group("plural") or match.group("cfr_plural"):
            end = match.end()
            while (item := _REF_LIST_ITEM.match(text, end)) is not None:
                found.setdefault(_ref_id(item), None)
                end = item.end()
    return list(found)
