"""The cfr scheme's scopes: the parts a query names."""

from __future__ import annotations

from ragd.citing import get_scheme
from ragd.types import Candidate


def test_cfr_parts_are_scopes():
    cfr = get_scheme("cfr")
    assert cfr.find_scopes("Under part 750, how many days does review take?") == ["750"]
    assert cfr.find_scopes("the order of review in supplement no. 4 to part 774") == ["774"]
    assert cfr.find_scopes("parts 740, 742 or 746") == ["740", "742", "746"]
    assert cfr.find_scopes("What does § 744.6(b)(3) require?") == ["744"]
    assert cfr.find_scopes("Do I need a license for Cuba?") == []
    assert cfr.find_scopes("part 7440") == []
    passage = Candidate("EAR-744.6(b)", 0, "text", 1.0, section_id="EAR-744.6(b)")
    assert cfr.scope_of(passage) == "744"
    assert cfr.scope_of(Candidate("notes.md", 0, "text", 1.0)) is None
