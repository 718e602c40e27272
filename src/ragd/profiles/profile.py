"""Profiles as data: one TOML file per contract, merged over the defaults, checked on load.

A profile names, by registered name, its chunker and chunk policy, the metadata
its documents must carry, its citation scheme and its retrieval plan
(thresholds, cache, timeout), and how the CLI presents results. ``default.toml``
holds every key's default; any other profile (built in, or a file passed as
``--profile ./mine.toml``) is merged over it (or over the profile it
``extends``). The resolved data has a content hash that a collection records.
"""

from __future__ import annotations

import datetime as _dt
import tomllib
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from types import MappingProxyType
from typing import Any, Mapping

from ..citing import SCHEMES, CitationScheme
from ..chunking import CHUNKERS
from ..chunking.base import check_options
from ..chunking.dispatch import AUTO
from ..errors import ConfigError, RagdError
from ..ids import canonical_json, sha256_hex
from ..types import COUNTERS, MODES, ChunkPolicy, Plan
from . import schema as S

BUILTIN = "builtin"


def _validator_names() -> tuple[str, ...]:
    from ..evidence import VALIDATORS

    return VALIDATORS.names()


def _format_names() -> tuple[str, ...]:
    from ..evidence import FORMATS

    return FORMATS.names()


def _answer_check_names() -> tuple[str, ...]:
    from ..answer.gates import ANSWER_CHECKS

    return ANSWER_CHECKS.names()


def _reranker_names() -> tuple[str, ...]:
    from ..retrieval.rerank import RERANKERS

    return RERANKERS.names()


def _embedder_names() -> tuple[str, ...]:
    from ..embedding import embedder_kinds

    return tuple(embedder_kinds())


def _fusion_names() -> tuple[str, ...]:
    from ..retrieval.fusion import FUSION  # the retrieval package imports collections

    return FUSION.names()


METADATA_TYPES = ("string", "date", "integer", "number", "boolean")
RELEVANCE = ("fused", "cosine")
THRESHOLD_RULES = ("none", "mean-of-qualifying", "top")

SCHEMA: dict[str, Any] = {
    "name": S.Key(S.string(nonempty=True), "the profile's name"),
    "description": S.Key(S.string(), "what it is for"),
    "extends": S.Key(S.string(nonempty=True), "the profile this one is merged over"),
    "ingest": {
        "include": S.Key(S.list_of(S.string()), "only files matching these globs"),
        "exclude": S.Key(S.list_of(S.string()), "skip files matching these globs"),
        "metadata": S.AnyTable({
            "required": S.Key(S.boolean(), "a document without it is rejected"),
            "type": S.Key(S.choice(*METADATA_TYPES), "the value's type"),
            "enum": S.Key(S.list_of(S.scalar()), "the allowed values"),
        }, "rules for each metadata field, by name"),
        "embedding_retries": S.Key(S.integer(1, 10), "tries of a failed embedding call"),
        "record_embedder": S.Key(S.boolean(), "store the embedding model in chunk metadata"),
    },
    "chunking": {
        "chunker": S.Key(S.registered(CHUNKERS.names, ("auto",)), "a registered chunker"),
        "target_tokens": S.Key(S.either(S.integer(1), S.choice("embedder")),
                               "size a chunk aims for; 'embedder': the model's input limit"),
        "overlap_tokens": S.Key(S.integer(0), "words the next chunk repeats"),
        "max_unit_tokens": S.Key(S.integer(1), "longest paragraph kept as one unit"),
        "max_chars": S.Key(S.either(S.integer(1), S.choice("none")), "hard ceiling"),
        "counter": S.Key(S.choice(*COUNTERS), "what sizes count"),
        "options": S.Key(S.table(), "the chunker's own settings"),
    },
    "citation": {
        "scheme": S.Key(S.registered(SCHEMES.names), "a registered citation scheme"),
    },
    "retrieval": {
        "k": S.Key(S.integer(1, 1000), "results returned"),
        "pool": S.Key(S.integer(1, 10000), "candidates per list"),
        "gather": S.Key(S.integer(1, 10000), "candidates ragd ask keeps of the fused lists"),
        "mode": S.Key(S.choice(*MODES), "vector, lexical or hybrid"),
        "fusion": S.Key(S.registered(_fusion_names), "a registered fusion method"),
        "rrf_k": S.Key(S.integer(0), "RRF constant"),
        "weights": {"vector": S.Key(S.number(0)), "lexical": S.Key(S.number(0))},
        "relevance": S.Key(S.choice(*RELEVANCE), "the score thresholds apply to"),
        "min_relevance": S.Key(S.number(0, 1), "threshold on relevance"),
        "threshold_rule": S.Key(S.choice(*THRESHOLD_RULES), "how the threshold decides"),
        "cache_ttl_seconds": S.Key(S.number(0), "query cache lifetime; 0: off"),
        "timeout_seconds": S.Key(S.number(0), "retrieval deadline; 0: none"),
        "max_query_chars": S.Key(S.integer(1), "longer queries are refused"),
        "threshold_answers": S.Key(S.boolean(), "answers use only chunks passing "
                                   "min_relevance (or the fallback)"),
        "rerank": S.Key(S.either(S.choice(""), S.registered(_reranker_names)),
                        "re-score the best chunks with a reranker before MMR ('': none)"),
        "rerank_depth": S.Key(S.integer(1, 200), "chunks the reranker reads"),
        "rerank_tokens": S.Key(S.integer(32, 512), "tokens of query and chunk it reads"),
        "rerank_context": S.Key(S.boolean(), "the reranker reads a chunk's context line too"),
        "mmr": S.Key(S.boolean(), "pick the k chunks by maximal marginal relevance"),
        "mmr_lambda": S.Key(S.number(0, 1), "MMR: weight of relevance against diversity"),
        "spell_parts": S.Key(S.boolean(), "spell out abbreviated references to a document's "
                             "parts before searching and answering ('Ch.3' -> 'Chapter 3')"),
        "spelling": S.Key(S.boolean(), "also search the query with misspelt words corrected "
                          "to the collection's vocabulary"),
        "acronyms": S.Key(S.boolean(), "also search it with its acronyms' long forms as the "
                          "documents define them"),
        "acronym_names": S.Key(S.boolean(), "and, for an acronym in capitals no text defines, "
                               "the long form the documents' names spell; one the passages "
                               "never write but write out is read as written out"),
        "focus_words": S.Key(S.integer(0), "a question this long (words) is read by the "
                             "reranker, the checks and the reader as its ask alone; 0: never"),
        "focus_sources": S.Key(S.list_of(S.string(True)), "words naming the documents: a "
                               "piece of a long question naming one ('according to the "
                               "guidance on ...') stays with its ask"),
        "expansions": S.AnyTable(S.Key(S.list_of(S.string(True))),
                                 "query expansion: a phrase the query contains -> terms "
                                 "added in a second search"),
        "fallback": {
            "min_relevance": S.Key(S.number(0, 1), "fallback threshold; 0: no fallback"),
            "only_if_empty": S.Key(S.boolean(), "tried only when nothing passes "
                                   "min_relevance"),
            "match_field": S.Key(S.string(), "metadata field (a file name) the best chunk's "
                                 "must match the query's keywords or doc hints by"),
            "hints": S.AnyTable(S.Key(S.list_of(S.string(True))),
                                "doc hints: a phrase of the query -> name fragments"),
        },
    },
    "scope": {
        "field": S.Key(S.string(), "metadata field a scope filters on"),
        "default": S.Key(S.string(), "the scope when none is asked for"),
        "values": S.AnyTable(S.Key(S.list_of(S.string(True))),
                             "scope name -> values of the field it admits (none: all)"),
        "aliases": S.AnyTable(S.Key(S.string(True)),
                              "other labels (a golden set's) -> a value of the field"),
        "named": S.AnyTable(S.Key(S.list_of(S.string(True))),
                            "a source's name as a question writes it (whole word, case "
                            "kept) -> values of the field: with no scope asked for, such "
                            "a question is searched within them first"),
    },
    "evaluation": {
        "gates": S.AnyTable(S.Key(S.list_of(S.string(True))),
                            "named gate sets for ragd eval qa --gates NAME"),
        "alerts": S.AnyTable(S.Key(S.string(True)),
                             "metric -> the message printed when a gate on it fails"),
    },
    "evidence": {
        "validators": S.Key(S.list_of(S.registered(_validator_names)),
                            "evidence validators, in order"),
        "relevance": S.Key(S.choice(*RELEVANCE), "the score evidence checks read"),
        "floor": S.Key(S.number(0, 1), "best relevance under it: refuse (low_relevance)"),
        "min_relevance": S.Key(S.number(0, 1), "passages under it are dropped"),
        "min_chunks": S.Key(S.integer(1), "evidence_threshold: passages needed"),
        "strong_relevance": S.Key(S.number(0, 1), "evidence_threshold: or one this strong"),
        "reranker": S.Key(S.registered(_reranker_names), "cross_encoder: the model"),
        "rerank_top": S.Key(S.integer(1, 50), "cross_encoder: passages scored"),
        "rerank_tokens": S.Key(S.integer(32, 512), "cross_encoder: tokens of question and "
                               "passage it reads"),
        "rerank_floor": S.Key(S.number(-20, 20), "cross_encoder: best score under it "
                              "refuses (low_relevance)"),
        "rerank_min": S.Key(S.number(-20, 20), "cross_encoder: passages under it are dropped"),
        "log": S.Key(S.string(), "append each validation to this file under the logs folder "
                     "('' : none)"),
        "requires": S.Key(S.rules({"words": S.list_of(S.string(True)),
                                   "field": S.string(True), "value": S.scalar()}),
                          "requires: question words that need a kind of document"),
        "rerank_context": S.Key(S.boolean(), "cross_encoder: it reads a passage's context "
                                "line (title, heading path) too"),
    },
    "context": {
        "max_tokens": S.Key(S.integer(1), "context budget in words"),
        "max_chunks": S.Key(S.integer(1), "passages in the context"),
        "required_fields": S.Key(S.list_of(S.string(True)), "citation fields a passage needs "
                                 "(a|b: either)"),
        "min_chunks": S.Key(S.integer(1), "fewer passages: insufficient_context"),
        "order": S.Key(S.list_of(S.choice("named_section", "named_scope", "authority", "score",
                                          "rank")), "how passages are ordered"),
        "format": S.Key(S.registered(_format_names), "how the context text is written"),
        "log": S.Key(S.string(), "append each assembly to this file under the logs folder"),
    },
    "answer": {
        "max_sentences": S.Key(S.integer(1, 6), "sentences in an answer"),
        "min_coverage": S.Key(S.number(0, 1), "extractive: a sentence's share of the "
                              "question's weighted terms"),
        "relative": S.Key(S.number(0, 1), "extractive: keep sentences scoring this share "
                          "of the best"),
        "passage_relative": S.Key(S.number(0, 1), "extractive: keep sentences whose passage "
                                  "covers this share of the best passage's question terms"),
        "similarity": S.Key(S.boolean(), "extractive: score sentences by their cosine with "
                            "the question too"),
        "min_similarity": S.Key(S.number(0, 1), "extractive: a sentence this similar is a "
                                "candidate whatever its term coverage"),
        "shortlist": S.Key(S.integer(1, 100), "extractive: sentences scored by cosine"),
        "similarity_model": S.Key(S.either(S.choice(""), S.registered(_reranker_names)),
                                  "extractive: score sentences with this reranker instead of "
                                  "the embedding model's cosine ('': the cosine)"),
        "min_answer_coverage": S.Key(S.number(0, 1), "the answer's sentences together hold "
                                     "this share of the question's weighted terms"),
        "support_threshold": S.Key(S.number(0, 1), "a sentence's content terms its cited "
                                   "facts must hold"),
        "outside_terms": S.Key(S.boolean(), "refuse questions naming what the documents lack"),
        "outside_names": S.Key(S.boolean(), "refuse questions whose ask names a proper name "
                               "(a company, a product) no passage of the collection holds"),
        "answer_type": S.Key(S.either(S.boolean(), S.list_of(S.choice(
                                 "amount", "number", "percent", "duration", "date",
                                 "time"))),
                             "how much / how many / what percentage / how long / by when / "
                             "when need an amount, number, share, duration, date or time "
                             "(true: all; or the kinds checked)"),
        "checks": S.Key(S.list_of(S.registered(_answer_check_names)),
                        "answer checks, in order: each may refuse a drafted answer"),
        "context_terms": S.Key(S.boolean(), "extractive: a passage's title and heading path "
                               "count towards its sentences' coverage"),
        "fragments": S.Key(S.boolean(), "extractive: a sentence starting in lower case (cut "
                           "by a passage boundary) may be picked"),
        "follow": S.Key(S.integer(0, 5), "extractive: sentences following a picked one in its "
                        "passage that join it"),
        "similarity_weight": S.Key(S.number(0, 1), "extractive: share of the similarity in a "
                                   "sentence's score"),
        "definitions": S.Key(S.boolean(), "extractive: a definitional question prefers the "
                             "sentences that define its subject"),
        "definition_passages": S.Key(S.integer(0, 20), "definitions: passages defining the "
                                     "asked term brought up for reading"),
        "type_bonus": S.Key(S.number(0, 1), "extractive: added to the score of a sentence "
                            "holding what the question asks for (a duration for 'how long', "
                            "an amount, a number, a date)"),
        "lists": S.Key(S.boolean(), "extractive: a question asking for a list's items takes a "
                       "sentence holding a list first, its passage leading the answer"),
        "confidence_high": S.Key(S.number(0, 1), "top relevance for High"),
        "confidence_medium": S.Key(S.number(0, 1), "top relevance for Medium"),
        "refusal_text": S.Key(S.string(True), "the exact text of a refusal"),
        "style": S.Key(S.choice("numbered", "qa-contract"), "how an answer is rendered"),
        "audit": S.Key(S.boolean(), "append every run to the audit log"),
        "llm_max_tokens": S.Key(S.integer(16, 8192), "reply budget of one model call"),
        "reason_names": S.Key(S.table(S.string(True)), "refusal reasons renamed for the "
                              "profile's contract"),
    },
    "embedding": {
        "model": S.Key(S.registered(_embedder_names), "the embedder a new collection of "
                       "this profile gets when none is named (a collection keeps its own)"),
    },
    "calibration": {
        "model": S.Key(S.string(), "the embedding model the thresholds belong to"),
        "reference": S.Key(S.string(), "where the thresholds came from"),
    },
    "output": {
        "search": S.Key(S.choice("results", "rag-context"), "what search prints"),
        "ingest": S.Key(S.choice("report", "ingestion-result"), "what ingest prints"),
        "manifest_fields": S.Key(S.list_of(S.string(True)),
                                 "chunk metadata in `ragd export --manifest`"),
    },
}


def _frozen(value: Any) -> Any:
    if isinstance(value, dict):
        return MappingProxyType({k: _frozen(v) for k, v in value.items()})
    if isinstance(value, list):
        return tuple(_frozen(v) for v in value)
    return value


def _plain(value: Any) -> Any:
    """JSON-ready copy (tables to dicts, tuples to lists, dates to ISO strings)."""
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, (_dt.date, _dt.datetime, _dt.time)):
        return value.isoformat()
    return value


def merge(base: Mapping[str, Any], over: Mapping[str, Any]) -> dict[str, Any]:
    """``over`` merged into ``base``: tables recursively, anything else replaced."""
    out = {k: _plain(v) if isinstance(v, Mapping) else v for k, v in base.items()}
    for key, value in over.items():
        if isinstance(value, Mapping) and isinstance(out.get(key), Mapping):
            out[key] = merge(out[key], value)
        else:
            out[key] = _plain(value) if isinstance(value, (Mapping, list, tuple)) else value
    return out


@dataclass(frozen=True)
class Profile:
    """A resolved profile: every setting, where it came from, and its content hash."""

    name: str
    source: str
    data: Mapping[str, Any]
    content_hash: str

    @property
    def description(self) -> str:
        return str(self.data.get("description", ""))

    @property
    def retrieval(self) -> Mapping[str, Any]:
        return self.data["retrieval"]

    @property
    def ingest(self) -> Mapping[str, Any]:
        return self.data["ingest"]

    @property
    def output(self) -> Mapping[str, Any]:
        return self.data["output"]

    @property
    def scheme(self) -> CitationScheme:
        return SCHEMES.get(self.data["citation"]["scheme"])

    @property
    def embedder(self) -> str:
        """The embedder kind a new collection of this profile gets when none is named."""
        return str(self.data["embedding"]["model"])

    @property
    def calibrated_for(self) -> str:
        return str(self.data["calibration"].get("model", ""))

    def chunk_policy(self, max_input_tokens: int | None = None) -> ChunkPolicy:
        """The chunk policy; ``target_tokens = "embedder"`` needs the model's input limit."""
        c = self.data["chunking"]
        target = c["target_tokens"]
        if target == "embedder":
            if max_input_tokens is None:
                raise ConfigError(f"profile {self.name!r}: target_tokens 'embedder' needs the "
                                  "collection's embedder")
            target = max(1, int(max_input_tokens))
        return ChunkPolicy(target_tokens=target, overlap_tokens=c["overlap_tokens"],
                           max_chars=None if c["max_chars"] == "none" else c["max_chars"],
                           chunker=c["chunker"], max_unit_tokens=c["max_unit_tokens"],
                           counter=c["counter"], options=dict(c["options"]))

    def plan(self, **overrides: Any) -> Plan:
        """The retrieval plan (k, pool, mode, fusion, weights, scheme), with overrides."""
        r = self.retrieval
        values = {"k": r["k"], "pool": r["pool"], "mode": r["mode"], "fusion": r["fusion"],
                  "rrf_k": r["rrf_k"], "weights": dict(r["weights"]),
                  "scheme": self.data["citation"]["scheme"], "spell_parts": r["spell_parts"]}
        values.update({k: v for k, v in overrides.items() if v is not None})
        return Plan(**values)

    def as_dict(self) -> dict[str, Any]:
        return _plain(self.data)

    def summary(self) -> dict[str, str]:
        """What a collection records about the profile it was created with."""
        return {"name": self.name, "hash": self.content_hash, "source": self.source}


def builtin_dir() -> Path:
    return Path(str(resources.files("ragd.profiles")))


def builtin_names() -> tuple[str, ...]:
    return tuple(sorted(p.stem for p in builtin_dir().glob("*.toml")))


def _read(path: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(path.read_text("utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"no profile file {path}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read the profile: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None


def _locate(spec: str) -> tuple[Path, str]:
    """(file, source) of a built-in name or a path."""
    if spec in builtin_names():
        return builtin_dir() / f"{spec}.toml", BUILTIN
    if "/" in spec or "\\" in spec or spec.endswith(".toml") or Path(spec).is_file():
        path = Path(spec).expanduser()
        return path, str(path.resolve())
    raise ConfigError(f"unknown profile {spec!r}; built in: {', '.join(builtin_names())} "
                      "(or a path to a .toml file)")


def load_profile(spec: "str | Path | Profile | None" = None, *, _seen: tuple[str, ...] = ()
                 ) -> Profile:
    """A profile by built-in name or file path, merged over its base and checked."""
    if isinstance(spec, Profile):
        return spec
    spec = "default" if spec is None or spec == "" else str(spec)
    path, source = _locate(spec)
    where = str(path)
    raw = _read(path)
    S.check(raw, SCHEMA, where)
    name = raw.get("name") or path.stem
    is_default = source == BUILTIN and path.stem == "default"
    if is_default:
        data = merge({}, raw)
    else:
        parent = raw.get("extends", "default")
        if parent in _seen + (spec,):
            raise ConfigError(f"{where}: extends {parent!r} makes a cycle")
        base = load_profile(parent, _seen=_seen + (spec,))
        data = merge(base.data, raw)
        data.pop("extends", None)
    data["name"] = name
    _check_resolved(data, where)
    content_hash = sha256_hex(canonical_json(_plain(data)))
    return Profile(name=name, source=source, data=_frozen(data), content_hash=content_hash)


def _check_resolved(data: Mapping[str, Any], where: str) -> None:
    """Rules across keys, on the merged data (defaults included)."""
    missing = [k for k in ("chunking", "citation", "retrieval", "output", "ingest",
                           "calibration", "evidence", "context", "answer", "embedding")
               if k not in data]
    if missing:
        raise ConfigError(f"{where}: missing table {missing[0]!r}")
    c = data["chunking"]
    target = c["target_tokens"]
    if isinstance(target, int) and c["overlap_tokens"] >= target:
        raise ConfigError(f"{where}: chunking.overlap_tokens ({c['overlap_tokens']}) must be "
                          f"below chunking.target_tokens ({target})")
    if target == "embedder" and c["counter"] != "model":
        raise ConfigError(f"{where}: chunking.target_tokens 'embedder' counts the model's "
                          "tokens: set chunking.counter = \"model\"")
    names = [AUTO[f] for f in AUTO] if c["chunker"] == "auto" else [c["chunker"]]
    try:
        if c["options"]:
            known = {k for n in names for k in CHUNKERS.get(n).options}
            for n in names:
                spec = CHUNKERS.get(n)
                mine = {k: v for k, v in c["options"].items() if k in spec.options}
                check_options(spec, mine)
            unknown = sorted(set(c["options"]) - known)
            if unknown:
                raise ConfigError(f"chunker {c['chunker']!r} takes no option {unknown[0]!r}")
        probe = dict(c, target_tokens=target if isinstance(target, int) else 10_000)
        Profile("probe", "", _frozen(dict(data, chunking=probe)), "").chunk_policy()
    except RagdError as exc:
        raise ConfigError(f"{where}: chunking: {exc}") from None
    for field, rule in data["ingest"].get("metadata", {}).items():
        if "enum" in rule and "type" in rule and rule["type"] == "date":
            raise ConfigError(f"{where}: ingest.metadata.{field}: a date field takes no enum")
