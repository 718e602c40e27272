"""Arrays in one file: written atomically, mapped back with their values and metadata."""

from __future__ import annotations

import numpy as np

from ragd.stores.array_file import ChainedKeys, PackedKeys, read_arrays, write_arrays


def test_arrays_round_trip_memory_mapped(tmp_path):
    path = tmp_path / "x.arr"
    arrays = {"a": np.arange(10, dtype=np.int64), "b": np.linspace(0, 1, 7),
              "empty": np.zeros(0, np.uint16), "m": np.ones((3, 4), np.float32)}
    write_arrays(path, {"version": 3}, arrays)
    meta, got = read_arrays(path)
    assert meta == {"version": 3}
    for name, a in arrays.items():
        assert got[name].dtype == a.dtype and np.array_equal(got[name], a)
    assert not got["a"].flags.owndata and not got["a"].flags.writeable  # mapped, not read
    assert [p.name for p in tmp_path.iterdir()] == ["x.arr"]  # no temporary left


def test_missing_or_foreign_files_read_as_none(tmp_path):
    assert read_arrays(tmp_path / "none") is None
    (tmp_path / "junk").write_bytes(b"not an array file")
    assert read_arrays(tmp_path / "junk") is None


def test_packed_and_chained_keys_give_back_the_keys():
    keys = [("doc-é", 0), ("b", 3), ("", 1)]
    packed = PackedKeys.pack(keys)
    assert len(packed) == 3 and [packed[i] for i in range(3)] == keys
    chained = ChainedKeys(packed).plus([("z", 9)])
    assert len(chained) == 4 and chained[3] == ("z", 9) and chained[-1] == ("z", 9)
    assert chained[:2] == keys[:2]


def test_packed_and_chained_keys_decode_any_index():
    from ragd.stores.array_file import ChainedKeys, PackedKeys

    keys = [("a", 0), ("café", 3), ("", 1), ("doc-9", 12)]
    packed = PackedKeys.pack(keys)
    assert [packed[i] for i in range(4)] == keys
    assert packed[-1] == ("doc-9", 12) and packed[1:3] == keys[1:3]
    chained = ChainedKeys(packed, [("x", 5)]).plus([("y", 6)])
    assert list(chained) == keys + [("x", 5), ("y", 6)]
    assert chained[-1] == ("y", 6) and chained[-3] == ("doc-9", 12)


def test_keys_are_taken_many_at_once_as_one_at_a_time():
    from ragd.stores.array_file import take_keys

    rng = np.random.default_rng(4)
    keys = [(f"dóc-{i % 37}", int(i)) for i in rng.integers(0, 10**6, 300)]
    packed = PackedKeys.pack(keys[:250])
    chained = ChainedKeys(packed, keys[250:])
    for rows in (np.array([], dtype=np.int64), rng.integers(0, 250, 40),
                 rng.integers(0, 300, 40), np.array([299, 0, 249, 250])):
        want = [keys[i] for i in rows]
        assert take_keys(chained, rows) == want
        assert take_keys(keys, rows) == want
        inside = rows[rows < 250]
        assert packed.take(inside) == [keys[i] for i in inside]
