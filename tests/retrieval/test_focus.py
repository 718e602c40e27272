"""The ask of a long question (``[retrieval] focus_words``): what the reranker, the evidence
checks and the reader read when a question comes wrapped in its story."""

from __future__ import annotations

import random
import re

import pytest

from ragd import Document
from ragd.ingest.pipeline import ingest_documents
from ragd.profiles import load_profile
from ragd.retrieval.rerank import RERANKERS
from ragd.retrieval.focus import focus
from ragd.retrieval.gather import gather

# what pharma-qa calls its documents: a piece naming one stays with the ask
SOURCES = frozenset(load_profile("pharma-qa").retrieval["focus_sources"])

STORY = ("I work in a small QC lab where our HPLC data system only has one login that all "
         "analysts use because extra licences are expensive, and auditors keep flagging it; "
         "can you explain why regulators object to shared logins on GMP computerised systems "
         "and what they expect instead, since management thinks it is fine as long as the "
         "logbook is filled in?")


def test_a_long_question_is_read_as_its_ask():
    assert focus(STORY, 30) == ("can you explain why regulators object to shared logins on "
                                "GMP computerised systems and what they expect instead?")
    chatty = ("So we are designing a new aseptic filling line and there is a debate in the "
              "project team about the air around the open vials, I remember something about "
              "Class 100 from the FDA guidance but not the numbers, what does FDA actually "
              "expect for the critical area?")
    assert focus(chatty, 30) == "what does FDA actually expect for the critical area?"


def test_an_ask_that_names_nothing_gives_way_to_the_embedded_question():
    q = ("We outsource some of our testing to a contract lab and they want to pass part of "
         "the work on to another lab they partner with because they lack capacity, our QA "
         "head is unsure whether subcontracting is allowed under EU GMP Chapter 7, "
         "can you clarify?")
    assert focus(q, 30) == ("our QA head is unsure whether subcontracting is allowed under "
                            "EU GMP Chapter 7?")


def test_a_lead_in_ending_in_a_colon_is_no_part_of_the_ask():
    q = ("We went live with a new LIMS three months ago because the project slipped, so the "
         "formal validation was never finished. Our IT manager now wants to write it up "
         "afterwards. Before I push back at the steering meeting: is retrospective "
         "validation acceptable for a new computerised system under PIC/S PI 011-3?")
    assert focus(q, 30) == ("is retrospective validation acceptable for a new computerised "
                            "system under PIC/S PI 011-3?")


def test_short_questions_and_questions_without_an_ask_are_left_whole():
    assert focus("What is an electronic signature under 21 CFR Part 11?", 30) == \
        "What is an electronic signature under 21 CFR Part 11?"
    assert focus(STORY, 0) == STORY                     # 0: never
    assert focus(STORY, 200) == STORY                   # shorter than the setting
    story_only = ("Our site scans paper batch records into PDFs and then shreds the originals "
                  "to save space and the inspector was not happy about it at all during the "
                  "last visit to the plant in the spring of this year")
    assert focus(story_only, 30) == story_only
    # an abbreviation's full stop ends no sentence: "U.S. content" stays in its piece
    us = ("For a reexport to China of a foreign-made product incorporating controlled U.S. "
          "content from several suppliers with different classifications and values, how do "
          "I calculate the percentage of controlled U.S. content?")
    assert "controlled U.S. content?" in focus(us, 30)


@pytest.mark.parametrize("seed", range(25))
def test_the_focus_is_the_questions_own_words_in_order(seed):
    """Whatever the question, the focus only drops words: its words are the question's, in
    the question's order (a property over shuffled pieces of real questions)."""
    rng = random.Random(seed)
    pieces = ["we ship valves to a distributor", "can you explain the licence rules",
              "and the auditors keep asking", "what does the regulation expect instead",
              "since the manager disagrees", "so how long must records be kept",
              "I remember something about Class 100", "the lab is small"]
    rng.shuffle(pieces)
    q = ", ".join(pieces[:rng.randint(3, 8)]) + rng.choice(["?", ".", ""])
    out = focus(q, 10)
    said = re.findall(r"\w+", q)
    it = iter(said)
    assert all(w in it for w in re.findall(r"\w+", out))    # a subsequence of the question


def test_the_reranker_reads_the_ask_of_a_long_question(toy_collection, monkeypatch):
    ingest_documents([Document("a", "Shared login accounts make entries non-attributable; "
                               "each user needs a unique login."),
                      Document("b", "Logbooks record equipment use in the laboratory.")],
                     toy_collection)
    read: list[str] = []

    class Reader:
        def score(self, query, passages):
            read.append(query)
            return [float(len(p)) for p in passages]

    monkeypatch.setitem(RERANKERS._items, "recording", lambda tokens=256: Reader())
    settings = {"k": 2, "rerank": "recording", "focus_words": 30}
    got = gather(STORY, toy_collection, settings, toy_collection.profile.plan(k=10))
    assert got.pool, "nothing retrieved"
    assert read == [focus(STORY, 30)] and got.asked == focus(STORY, 30)
    assert got.variants[0] == STORY                      # search still reads it all
    read.clear()
    gather(STORY, toy_collection, {**settings, "focus_words": 0},
           toy_collection.profile.plan(k=10))
    assert read == [STORY]


def test_a_relative_clause_after_a_comma_is_no_ask():
    """"..., which worries our validation lead" continues the piece before it: the ask is
    the embedded question of the piece after it (a closing "could you explain?" names
    nothing); a relative clause ending the question with "?" still asks."""
    q = ("Our QC lab is moving from paper logbooks to a new LIMS, and the supplier told us its "
         "change-tracking feature is optional and configurable, which worries our validation "
         "lead; before we sign the purchase order I would like to understand what EU GMP Annex "
         "11 actually expects about audit trails for a computerised system like this one, "
         "could you explain?")
    assert focus(q, 30) == ("before we sign the purchase order I would like to understand what "
                            "EU GMP Annex 11 actually expects about audit trails for a "
                            "computerised system like this one?")
    q2 = ("We run a small sterile filling line in an old building and the auditors keep asking "
          "about our environmental monitoring programme and the alert levels we set for it, "
          "which annex sets the grades for the air in the filling zone?")
    assert focus(q2, 30) == "which annex sets the grades for the air in the filling zone?"


@pytest.mark.parametrize(("tail", "ask"), [
    (", when must the alert levels be reviewed, according to Annex 1?",
     "when must the alert levels be reviewed, according to Annex 1?"),  # (the source stays)
    (", where should settle plates be placed, if you can tell me?",
     "where should settle plates be placed?"),
    (", who is responsible for approving the monitoring plan, the QP or QA?",
     "who is responsible for approving the monitoring plan, the QP or QA?"),  # (its options)
])
def test_a_question_after_a_comma_still_asks(tail, ask):
    """A wh-word after a comma that a verb follows asks ("where should ..."), and one that
    looks relative is set aside only when something else asks."""
    story = ("We run a small sterile filling line in an old building and the auditors keep "
             "asking about our environmental monitoring programme and the alert levels we set "
             "for it")
    assert focus(story + tail, 30, SOURCES) == ask


def test_a_piece_naming_the_source_asked_of_stays_with_the_ask():
    q = ("I am new in our QC lab and we are replacing an old HPLC method next month; "
         "according to FDA's guidance on analytical procedures, when should a company "
         "consider revalidation or a comparability study?")
    assert focus(q, 30, SOURCES) == ("according to FDA's guidance on analytical procedures when should "
                            "a company consider revalidation or a comparability study?")
    # the story's own "in our lab" names no source, and a piece without a name is no source
    story = ("In our lab we keep paper logbooks and the supplier says the new LIMS audit "
             "trail is optional, which worries our validation lead; in practice, is an audit "
             "trail required for GMP data under Annex 11?")
    assert focus(story, 30, SOURCES) == "is an audit trail required for GMP data under Annex 11?"



def test_a_piece_of_the_story_is_no_source():
    story = ("We have been told many things about this over the last year by several people "
             "at the site, ")
    ask = "what must the alert levels be based on for grade A zones?"
    for piece in ("In March 2023, ", "Under pressure from QA, ", "In the Dublin plant, ",
                  "in breach of the export rules, "):
        assert focus(story + piece + ask, 30, SOURCES) == ask
    for piece in ("Under EU GMP Annex 1", "per 21 CFR 211", "under ICH Q13"):
        assert focus(story + piece + ", " + ask, 30, SOURCES) == f"{piece} {ask}"


STORY_OPENING = ("We moved our batch records to a scanning system last year and the archive room "
                 "is full, and the site head wants the shelves cleared before the audit; ")


def test_the_condition_an_ask_is_asked_under_stays_with_it():
    """"once paper records are scanned ..., can we discard the originals?": the ask is
    asked under the condition its comma joins to it; a lead-in naming the text asked of
    ("PIC/S PI 041:") stays too."""
    q = (STORY_OPENING + "PIC/S PI 041: once paper records have been scanned and verified "
         "as true copies, can we get rid of the paper originals?")
    assert focus(q, 30, SOURCES) == ("PIC/S PI 041: once paper records have been scanned and "
                                     "verified as true copies can we get rid of the paper "
                                     "originals?")
    # a piece opening with "before" that asks something itself is the story's
    q2 = (STORY_OPENING + "before designing anything I would like to understand why such "
          "records are kept at all, so what does the guidance say about true copies?")
    assert focus(q2, 30, SOURCES) == "what does the guidance say about true copies?"
    # a long condition is the story's too
    q3 = (STORY_OPENING + "if the scanning vendor that we hired last spring after a long "
          "tender finally delivers the verified images it promised us by the end of this "
          "month, can we get rid of the paper originals?")
    assert focus(q3, 30, SOURCES) == "can we get rid of the paper originals?"
    # ... unless the ask's pronoun stands for what it tells of: "do they have to ..." asks
    # nothing without the user it refers to
    q4 = (STORY_OPENING + "if a user signs several batch records during one continuous "
          "login session with a password-based e-signature, do they have to enter both the "
          "user ID and the password every time?")
    assert focus(q4, 30, SOURCES) == ("if a user signs several batch records during one "
                                      "continuous login session with a password-based "
                                      "e-signature do they have to enter both the user ID "
                                      "and the password every time?")
    q5 = q4.replace("do they have to enter", "does the system ask for")
    assert focus(q5, 30, SOURCES) == ("does the system ask for both the user ID and the "
                                      "password every time?")


@pytest.mark.parametrize(("tail", "ask"), [
    ("What quality information is sufficient for an authorised, unmodified comparator "
     "product used in a clinical trial?",
     "What quality information is sufficient for an authorised, unmodified comparator "
     "product used in a clinical trial?"),
    ("How should audit trails be reviewed, and by whom?",
     "How should audit trails be reviewed, and by whom?"),
    ("Is a full CSV required for the new software, or only a risk assessment?",
     "Is a full CSV required for the new software, or only a risk assessment?"),
    # the asker's own purpose, a reason, a long remark: the story's
    ("How does the MHRA guidance define raw data, so I can explain it to my team?",
     "How does the MHRA guidance define raw data?"),
    ("What makes something a true copy, because we never checked the scans against the "
     "paper?", "What makes something a true copy?"),
    ("What makes something a true copy, since the site head thinks any scan is fine as long "
     "as somebody signs the logbook page?", "What makes something a true copy?"),
])
def test_the_ask_reads_on_to_the_end_of_its_sentence(tail, ask):
    """Short pieces after an asking piece's commas, up to the "?" ending its sentence, are
    the rest of the ask ("an authorised, unmodified comparator"), not the story."""
    assert focus(STORY_OPENING + tail, 30, SOURCES) == ask

