"""The CI gate of the pharma-qa profile (QA contract v1), offline on the extractive path.

A fixed subset (tests/pharma_ci.py: 17 of the 55 PDFs of ../shared/data/pharma-pdfs, the
ones its questions' expected answers are in; twelve answerable questions and four to refuse
of bench/golden/pharma_qa.jsonl, four of bench/golden/pharma_perturb.jsonl) is ingested
with the pharma-qa profile; the chunks' vectors ship in tests/fixtures/pharma_vectors.npz
(made by bench/pharma_vectors_fixture.py); questions and answer sentences are embedded
live and the cross-encoder runs live. Gates: the contract's metrics (pass, hallucination,
fallback_used_rate_answerable, incorrect_refusal), at the levels this subset measured when
the subset measures, with a margin (CI_GATES: a regression gate). The contract's own levels
(the profile's [evaluation.gates]) apply to the full sets, which run in bench/
(bench/qa_golden.py; docs/profiles/pharma-qa.md reports both halves): offline, both meet
them (the perturbation set on questions its mechanisms were found by; the held-out set,
bench/golden/pharma_perturb_heldout.jsonl, measures 0.80).
"""

from __future__ import annotations

import re
import time

import pytest

from helpers import REPO, shared
from pharma_ci import CI_PDFS, in_baseline, in_perturb
from ragd import ingest, open_collection
from ragd.answer import answer
from ragd.answer.render import render_facts
from support.embed_cache import CachedEmbedder
from ragd.evaluation.gates import check_gates, parse_gates
from ragd.evaluation.qa import METRICS, load_golden, metrics, run_golden
from ragd.ingest.loaders import LoadOptions
from ragd.profiles import load_profile
from ragd.retrieval.focus import focus

FIXTURE = REPO / "tests" / "fixtures" / "pharma_vectors.npz"
BASELINE = REPO / "bench" / "golden" / "pharma_qa.jsonl"
PERTURB = REPO / "bench" / "golden" / "pharma_perturb.jsonl"
REFUSAL = "Not found in provided PDFs"

pytestmark = pytest.mark.slow


# Measured on this subset (the shipped profile: the contract's 0.20 / 0.18; all-MiniLM-L6-v2,
# int8 corpus vectors). When the gate was set: baseline pass 0.5625 (9/16), hallucination
# 0.0625 (1/16). Raised on 2026-11-26 to what the subset measures now: baseline pass 0.9375
# (15/16; ph-a010 misses a phrase), incorrect_refusal 0, hallucination 0, fallback
# 0; perturbations pass 0.75 (3/4), incorrect_refusal 0.25 (ph-p011 refused undetermined on
# the subset; answered on all 55 PDFs), hallucination 0. Gates: those levels less one question
# (a regression gate), hallucination 0, the fallback at the contract's 0.15. The contract's own
# levels (the profile's [evaluation.gates]) run on the full sets: docs/profiles/pharma-qa.md.
CI_GATES = {
    "baseline": ["pass>=0.875", "hallucination==0", "fallback_used_rate_answerable<=0.15",
                 "incorrect_refusal<=0.09"],
    "perturb": ["pass>=0.5", "hallucination==0", "fallback_used_rate_answerable<=0.15",
                "incorrect_refusal<=0.5"],
}
OPTIONS = LoadOptions(include=CI_PDFS)


@pytest.fixture(scope="module")
def pharma(tmp_path_factory):
    from ragd.embedding.onnx import MiniLMEmbedder

    pdfs = shared("pharma-pdfs")
    embedder = CachedEmbedder(MiniLMEmbedder(), CachedEmbedder.load_vectors(FIXTURE),
                              allow_misses=False)
    coll = open_collection(tmp_path_factory.mktemp("pharma") / "store", "pharma", embedder,
                           create=True, profile="pharma-qa")
    report = ingest([pdfs], coll, options=OPTIONS)
    assert (report.new, report.failed) == (len(CI_PDFS), 0)
    embedder.allow_misses = True  # questions and sentences are embedded live
    yield coll
    coll.close()


def _gates(specs, measured):
    gates = parse_gates(specs, ["qa"], METRICS, default_mode="qa")
    return check_gates(gates, {"qa": measured})


@pytest.fixture(scope="module")
def baseline(pharma):
    golden = [g for g in load_golden(BASELINE) if in_baseline(g.id, g.expected_not_found)]
    assert len(golden) == 16
    results = run_golden(golden, pharma)
    return results, metrics(results)


@pytest.fixture(scope="module")
def perturb(pharma):
    golden = [g for g in load_golden(PERTURB) if in_perturb(g.id)]
    assert len(golden) == 4
    results = run_golden(golden, pharma)
    return results, metrics(results)


def _failures(results):
    return [f"{r.golden.id}: {'; '.join(r.why)}" for r in results if not r.passed]


def test_baseline_stays_at_its_gates(baseline):
    results, m = baseline
    bad = [g for g in _gates(CI_GATES["baseline"], m) if not g.passed]
    assert not bad, ([g.describe() for g in bad], _failures(results))


def test_perturbations_stay_at_their_gates(perturb):
    results, m = perturb
    bad = [g for g in _gates(CI_GATES["perturb"], m) if not g.passed]
    assert not bad, ([g.describe() for g in bad], _failures(results))


def test_the_profile_holds_the_contract_gates_and_alert(pharma):
    evaluation = pharma.profile.data["evaluation"]
    assert list(evaluation["gates"]["baseline"]) == [
        "pass>=0.95", "hallucination==0", "fallback_used_rate_answerable<=0.15",
        "incorrect_refusal<=0.02"]
    assert evaluation["gates"]["perturb"][0] == "pass>=0.90"
    assert evaluation["alerts"]["fallback_used_rate_answerable"] == (
        "Fallback retrieval triggered too often; check embeddings/index changes or "
        "similarity calibration.")


def test_output_text_contract_and_every_sentence_on_its_cited_page(pharma, baseline):
    results, _ = baseline
    chunk_at_end = re.compile(r", ([0-9a-f]{32})\)$")
    for r in results:
        a = r.answer
        if a["status"] == "refused":
            assert a["answer"] == REFUSAL and not a["sentences"]
            continue
        lines = a["answer"].split("\n")
        assert lines[0] == "ANSWER:" and re.match(r"^CONFIDENCE: (High|Medium|Low)$", lines[-1])
        evidence = {e["chunk_id"]: e for e in a["evidence"]}
        for n, (text, s) in enumerate(zip(lines[1:-1], a["sentences"]), start=1):
            m = chunk_at_end.search(text)   # PDF names hold parentheses and commas
            assert m, text
            cited = evidence[m.group(1)]
            assert isinstance(cited["page"], int)
            assert text == f"{n}. {s['text']} ({cited['pdf']}, p{cited['page']}, {m.group(1)})"
            assert " ".join(s["text"].split()) in " ".join(cited["text"].split())


def test_facts_debug_text(pharma):
    a = answer("What is an electronic signature under 21 CFR Part 11?", pharma)
    text = render_facts(a.facts)
    lines = text.split("\n")
    assert lines[0] == "FACTS:" and len(lines) == len(a.facts) + 1 >= 2
    for ln in lines[1:]:
        assert re.match(r'^- ".+" \(pdf=".+\.pdf", page=\d+, chunk_id="[0-9a-f]{32}", '
                        r"score=\d\.\d{4}\)$", ln), ln


def test_scope_keeps_to_one_authority(pharma):
    a = answer("What are the requirements for audit trails?", pharma, scope="ICH")
    assert all(f["pdf"] for f in a.facts_dicts())
    assert {e.doc_id.split("/")[0] for e in a.facts} <= {"ich"}


def test_unchanged_folder_reingests_in_seconds(pharma):
    started = time.perf_counter()
    report = ingest([shared("pharma-pdfs")], pharma, options=OPTIONS)
    assert (report.unchanged, report.new, report.changed) == (len(CI_PDFS), 0, 0)
    assert time.perf_counter() - started < 10   # no PDF is read again


def test_a_question_naming_a_company_no_pdf_holds_is_refused(pharma, tmp_path):
    """fresh 19's ph-y028 asked for a warning letter to a company no PDF names, and was
    answered with the FDA guidance's general sentences on warning letters. A proper name
    the ask uses that no passage of the collection holds refuses (``outside_names``); a
    name the PDFs hold (EudraLex) does not, nor does the same question with the check off."""
    question = ("What did FDA's warning letter to Aurobindo say about electronic signatures "
                "under Part 11?")
    a = answer(question, pharma)
    assert (a.status, a.refusal_reason) == ("refused", "not_in_documents")
    assert a.trace.refused_by == "outside_names: Aurobindo"
    assert a.answer == REFUSAL
    off = tmp_path / "off.toml"
    off.write_text('name = "pharma-qa"\nextends = "pharma-qa"\n[answer]\noutside_names = false\n')
    b = answer(question, pharma, profile=load_profile(off))   # Part 11's generalities
    assert b.status == "answered"
    held = answer("What does EudraLex Volume 4 say about audit trails?", pharma)
    assert held.status == "answered"


def test_a_common_term_is_answered_with_its_glossary_entry(pharma):
    """fresh 20's z024, "How does ICH Q9 define 'risk'?": every passage of Q9 names risk,
    and its glossary chunk (under "7. DEFINITIONS") was in neither search's best 50.
    "define" also searches for "definition" (the profile's expansion rules), and the
    glossary's entry is read by the cross-encoder though the guideline's other sentences
    fill the shortlist: it leads the answer, cited to Q9's page 21."""
    a = answer("How does ICH Q9 define 'risk'?", pharma).to_dict()
    assert a["status"] == "answered"
    assert a["trace"]["variants"] == ["How does ICH Q9 define 'risk'?",
                                      "How does ICH Q9 define 'risk'? definition"]
    first = a["sentences"][0]
    assert first["text"].startswith("Risk: The combination of the probability of occurrence "
                                    "of harm and the severity of that harm")
    assert [(c["pdf"], c["page"]) for c in first["citations"]] == [("Q9.pdf", 21)]


def test_a_question_told_as_a_story_is_answered_from_its_ask(pharma, tmp_path):
    """ph-p012 and ph-p017 wrap their question in a story of 60 words: the reranker, the
    checks and the reader read the ask alone (``[retrieval] focus_words``) and answer from
    an expected PDF, every sentence a quote of its cited chunk; read whole, the
    cross-encoder scores every passage under its floor and the question is refused."""
    golden = {g.id: g for g in load_golden(PERTURB)}
    whole = tmp_path / "whole.toml"
    whole.write_text('name = "pharma-qa"\nextends = "pharma-qa"\n[retrieval]\nfocus_words = 0\n')
    # (on these 17 PDFs ph-p012 answers from PI 041-1 but not from its page on shared
    # logins, which the full corpus's FDA guidance supplies: no phrase is asked of it here)
    for gid, phrase in (("ph-p012", ""), ("ph-p017", "Class 100")):
        g = golden[gid]
        a = answer(g.question, pharma).to_dict()
        assert a["status"] == "answered", a["refusal_reason"]
        assert a["trace"]["read_as"] == focus(g.question, 30)     # the trace says what
        cited = {c["pdf"] for s in a["sentences"] for c in s["citations"]}
        assert cited & set(g.expected_sections), cited
        assert any(phrase in s["text"] for s in a["sentences"])
        evidence = {e["chunk_id"]: " ".join(e["text"].split()) for e in a["evidence"]}
        for s in a["sentences"]:
            assert all(" ".join(s["text"].split()) in evidence[c["chunk_id"]]
                       for c in s["citations"])
        refused = answer(g.question, pharma, profile=load_profile(whole))
        assert (refused.status, refused.refusal_reason) == ("refused", "low_relevance")


def test_a_term_asked_in_short_is_answered_with_its_definition(pharma, tmp_path):
    """ph-p001 asks "Part 11 e-signature?": the subject is read spelt out (electronic
    signature), and the passage of Part 11's definitions, which the reranker scores below
    the passages on signatures' controls, is selected and its definition leads the answer;
    without the definition preference the answer quotes those controls instead."""
    golden = {g.id: g for g in load_golden(PERTURB)}["ph-p001"]
    a = answer(golden.question, pharma).to_dict()
    assert a["status"] == "answered"
    first = a["sentences"][0]
    assert first["text"].startswith("(7) Electronic signature means")
    assert "legally binding equivalent" in first["text"]
    assert {c["pdf"] for c in first["citations"]} == {"21-CFR-Part-11-as-of-26Mar2025.pdf"}
    plain = tmp_path / "plain.toml"
    plain.write_text('name = "pharma-qa"\nextends = "pharma-qa"\n[answer]\ndefinitions = false\n')
    b = answer(golden.question, pharma, profile=load_profile(plain)).to_dict()
    assert b["status"] == "answered"
    assert not any(s["text"].startswith("(7) Electronic signature means") for s in b["sentences"])


def test_a_thing_the_documents_define_by_its_acronym_is_answered_with_that_definition(pharma):
    """ph-p003 asks "ICH Q13 continuous manufacturing?": the guideline introduces "(CM)" and
    then says what it is in a sentence opening with the acronym ("CM involves the
    continuous feeding of ..."), in a passage only the lexical search finds (its cosine read
    from the store passes the threshold). That sentence leads the answer, cited to page 6."""
    golden = {g.id: g for g in load_golden(PERTURB)}["ph-p003"]
    a = answer(golden.question, pharma).to_dict()
    assert a["status"] == "answered"
    assert a["trace"]["read_as"] == "ICH Q13 continuous manufacturing (CM)?"
    first = a["sentences"][0]
    assert first["text"].startswith("CM involves the continuous feeding of input materials")
    assert [(c["pdf"], c["page"]) for c in first["citations"]] == [
        ("ICH_Q13_Step4_Guideline_2022_1116.pdf", 6)]
    # ph-p004 says it otherwise: "continuous processing", which the contract's expansion rule
    # reads as continuous manufacturing, so the reranker reads "continuous processing (CM)";
    # and "what does ICH say about X" asks first what X is
    golden = {g.id: g for g in load_golden(PERTURB)}["ph-p004"]
    b = answer(golden.question, pharma).to_dict()
    assert b["status"] == "answered"
    assert b["sentences"][0]["text"] == first["text"]


def test_a_keyword_definition_question_naming_its_document_defines_the_rest(pharma):
    """"mhra gxp data integrity guidance metadata defintion" (the second held-out set's
    ph-j020): the words naming the MHRA guide are no part of what is asked, so the guide's
    "6.3. Metadata Metadata are data that ..." defines it, is admitted though only the
    lexical search found it, and leads the answer."""
    a = answer("mhra gxp data integrity guidance metadata defintion", pharma).to_dict()
    assert a["status"] == "answered"
    first = a["sentences"][0]
    assert first["text"].startswith("Metadata are data that describe the attributes of other")
    assert [(c["pdf"], c["page"]) for c in first["citations"]] == [
        ("MHRA_GxP_data_integrity_guide_March_edited_Final.pdf", 9)]
