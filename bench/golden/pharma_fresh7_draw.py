"""Seeded random draw of pages for the pharma_fresh7 golden set (kept as the helper that
wrote the set ran it; prints the drawn pages: `python bench/golden/pharma_fresh7_draw.py [-v]`).

Adapted from pharma_fresh6_draw.py. Procedure (seed 20261128, one random.Random instance used throughout):
  Phase 1 (folder coverage): for each folder in sorted order, draw 2 pages:
      draw a PDF uniformly from that folder's PDFs (sorted by path), then a page uniformly.
  Phase 2: draw the remaining 12 pages: PDF uniformly from ALL 55 PDFs (sorted by path), then a page.
Constraints: at most 2 draws per PDF (a PDF already used twice is redrawn); a page already drawn is redrawn;
  a page listed in pharma_fresh6.jsonl's expected_pages (matched by PDF file name) is redrawn;
  a page is skipped (and redrawn) if its extracted text has < 600 characters, looks like a table of
  contents (many dot leaders), a reference list, or is in MANUAL_SKIP (title/TOC/annex-list/reference/
  glossary-table pages judged by reading; reason given).
"""
import random, json, re, glob, os, sys
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.environ.get('PHARMA_PDFS', os.path.join(HERE, '..', '..', '..', 'shared', 'data', 'pharma-pdfs'))
PATHS = sorted(glob.glob(ROOT + '/*/*.pdf'))
REL = [os.path.relpath(p, ROOT) for p in PATHS]
def _load_text():
    cache = os.environ.get('FRESH7_TEXT_CACHE', '')  # optional: {relpath: [page texts]} as below
    if cache and os.path.exists(cache):
        return json.load(open(cache))
    import pypdfium2
    out = {}
    for p, r in zip(PATHS, REL):
        pdf = pypdfium2.PdfDocument(p)
        out[r] = [pdf[i].get_textpage().get_text_range() for i in range(len(pdf))]
    return out
TEXT = _load_text()

def _fresh6_pages():
    """{pdf file name: set of 1-based pages} collected from pharma_fresh6.jsonl's expected_pages only."""
    ex = {}
    with open(os.path.join(HERE, 'pharma_fresh6.jsonl')) as f:
        for line in f:
            if not line.strip():
                continue
            d = json.loads(line)
            for name, pages in (d.get('expected_pages') or {}).items():
                ex.setdefault(name, set()).update(pages)
    return ex
EXCLUDE = _fresh6_pages()

# (relpath, 1-based page) -> reason ; filled after reading drawn pages
MANUAL_SKIP = {
    ('ema/guideline-requirements-chemical-and-pharmaceutical-quality-documentation-concerning-investigational-medicinal-products-clinical-trials-revision-2_en.pdf', 1):
        'title page (agency address and adoption/consultation timeline only)',
    ('pic_s/pi-044-1-pics-gdp-aide-memoire.pdf', 12):
        'inspection checklist of questions and section numbers only; no statement of a requirement',
}

def auto_skip(t):
    s = re.sub(r'\s+', ' ', t).strip()
    if len(s) < 600:
        return 'short'
    lines = [l for l in t.splitlines() if l.strip()]
    dots = sum(1 for l in lines if re.search(r'\.{5,}|(\. ){4,}|…{2,}', l))
    if lines and dots / len(lines) > 0.25:
        return 'toc'
    if re.search(r'^\s*(references|bibliography)\s*$', t, re.I | re.M) and len(re.findall(r'https?://|doi|et al', t, re.I)) > 5:
        return 'references'
    return None

def main():
    rng = random.Random(20261128)
    used = {}
    drawn = []
    log = []
    def try_draw(pool, phase):
        while True:
            rel = rng.choice(pool)
            if used.get(rel, 0) >= 2:
                log.append((phase, rel, None, 'pdf-full')); continue
            n = len(TEXT[rel])
            pg = rng.randrange(n) + 1
            if (rel, pg) in drawn:
                log.append((phase, rel, pg, 'dup')); continue
            if pg in EXCLUDE.get(os.path.basename(rel), ()):
                log.append((phase, rel, pg, 'in-fresh6')); continue
            why = auto_skip(TEXT[rel][pg - 1]) or MANUAL_SKIP.get((rel, pg))
            if why:
                log.append((phase, rel, pg, 'skip:' + why)); continue
            used[rel] = used.get(rel, 0) + 1
            drawn.append((rel, pg))
            log.append((phase, rel, pg, 'OK'))
            return
    folders = sorted({r.split('/')[0] for r in REL})
    for f in folders:
        pool = [r for r in REL if r.startswith(f + '/')]
        for _ in range(2):
            try_draw(pool, 'P1-' + f)
    while len(drawn) < 26:
        try_draw(REL, 'P2')
    return drawn, log

if __name__ == '__main__':
    drawn, log = main()
    if '-v' in sys.argv:
        for l in log: print(*l, sep=' | ')
        print()
    for i, (rel, pg) in enumerate(drawn, 1):
        print(f'ph-g{i:03d}', pg, rel, sep=' | ')
    os.makedirs('/tmp/fresh7', exist_ok=True); json.dump(drawn, open('/tmp/fresh7/drawn.json', 'w'))
