"""The CI subset of the pharma-qa golden sets and of ../shared/data/pharma-pdfs.

Chosen for cost and coverage, fixed before the CI run measured anything on it:

* baseline: the answerable questions of bench/golden/pharma_qa.jsonl whose number is 4
  mod 6 (ph-a004, ph-a010, ... ph-a070: twelve, every authority) and the questions to
  refuse whose number is 1 mod 3 (ph-u001, ph-u004, ph-u007, ph-u010);
* perturbations: bench/golden/pharma_perturb.jsonl numbers 1 mod 5 (ph-p001, p006, p011, p016);
* PDFs: for each of those questions, its expected PDFs that sit in its authority's own
  folder (17 PDFs, 509 of the corpus' 1,611 pages), so CI extracts a third of the corpus.
"""

from __future__ import annotations

import re

CI_PDFS = (
    "ema/guideline-requirements-chemical-and-pharmaceutical-quality-documentation-concerning-"
    "investigational-medicinal-products-clinical-trials-revision-2_en.pdf",
    "eu_gmp/2005_12_14_annex19_en.pdf",
    "eu_gmp/2014-03_chapter_2.pdf",
    "eu_gmp/2014-08_gmp_chap8.pdf",
    "eu_gmp/20220825_gmp-an1_en_0.pdf",
    "eu_gmp/guideline_adopted_1_en_act_part1_v3.pdf",
    "fda/21-CFR-Part-11-as-of-26Mar2025.pdf",
    "fda/DRUG QUALITY SAMPLING AND TESTING (DQST)- HUMAN DRUGS_7356.008.pdf",
    "fda/Sterile-Drug-Products-Produced-by-Aseptic-Processing-—-cGMP.pdf",
    "ich/ICH_Q13_Step4_Guideline_2022_1116.pdf",
    "ich/ICH_Q14_Guideline_2023_1130_ErrorCorrection_2025.pdf",
    "ich/Q10.pdf",
    "ich/Q11 Guideline.pdf",
    "ich/Q9.pdf",
    "others/MHRA_GxP_data_integrity_guide_March_edited_Final.pdf",
    "pic_s/PI 041-1 Guidance on Data Integrity.pdf",
    "who/trs957-annex5-who-good-distribution-practices-for-pharmaceutical-products.pdf",
)


def number(gid: str) -> int:
    return int(re.findall(r"\d+", gid)[-1])


def in_baseline(gid: str, expected_not_found: bool) -> bool:
    return number(gid) % 3 == 1 if expected_not_found else number(gid) % 6 == 4


def in_perturb(gid: str) -> bool:
    return number(gid) % 5 == 1
