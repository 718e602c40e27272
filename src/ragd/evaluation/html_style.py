"""The stylesheet the evaluation reports (BEIR, QA) embed, so both read alike."""

CSS = """
body { font-family: -apple-system, 'Segoe UI', Helvetica, Arial, sans-serif; margin: 24px 32px;
       color: #222; max-width: 1320px; }
h1 { font-size: 24px; margin-bottom: 4px; } h2 { font-size: 19px; margin-top: 32px; }
p.meta { color: #555; margin-top: 0; font-size: 14px; }
table { border-collapse: collapse; font-size: 15px; margin: 8px 0 4px; }
th, td { border: 1px solid #ccc; padding: 6px 12px; text-align: right; }
th { background: #f0f3f7; } td.l, th.l { text-align: left; }
tr.best td.m { font-weight: bold; }
td.pass { color: #1a7f37; font-weight: bold; } td.fail { color: #c62828; font-weight: bold; }
img { max-width: 100%; border: 1px solid #e3e3e3; margin: 6px 0 18px; }
.note { color: #555; font-size: 13px; max-width: 1100px; }
"""
