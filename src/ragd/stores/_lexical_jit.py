"""The compiled loops of :mod:`.lexical_kernel` (imported only when numba is): module-level
functions, so numba can cache their machine code on disk."""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def accumulate(rows, tf, lo, hi, weight, norm, alive, use_alive, scores, touched,
               n_touched):
    """Add the postings ``lo[t]:hi[t]`` of each term ``t`` (weight ``weight[t]``) to
    ``scores``; rows first reaching a score are appended to ``touched``."""
    for t in range(lo.shape[0]):
        w = weight[t]
        for p in range(lo[t], hi[t]):
            r = rows[p]
            if use_alive and not alive[r]:
                continue
            f = np.float64(tf[p])
            # branch-free: the row is written, and kept only if it scored nothing yet
            touched[n_touched] = r
            n_touched += scores[r] == 0.0
            scores[r] += (w * f) / (f + norm[r])
    return n_touched


@njit(cache=True, nogil=True)
def kth_best(values, n, limit):
    """The ``limit``-th largest of ``values[:n]`` (n > limit), by a min-heap of size
    ``limit``: one pass, no copy of the values."""
    heap = np.empty(limit, dtype=np.float64)
    for i in range(limit):  # heapify the first ``limit`` values
        heap[i] = values[i]
    for start in range(limit // 2 - 1, -1, -1):
        _sift(heap, start, limit)
    for i in range(limit, n):
        v = values[i]
        if v > heap[0]:
            heap[0] = v
            _sift(heap, 0, limit)
    return heap[0]


@njit(cache=True, nogil=True)
def _sift(heap, i, size):
    while True:
        small = i
        left = 2 * i + 1
        right = left + 1
        if left < size and heap[left] < heap[small]:
            small = left
        if right < size and heap[right] < heap[small]:
            small = right
        if small == i:
            return
        heap[i], heap[small] = heap[small], heap[i]
        i = small


DENSE_SHARE = 1
"""A query whose postings number at least the rows over ``DENSE_SHARE`` is scored without
the list of rows it touched: its rows are read back in one sequential pass over the score
array instead of one random read per touched row. Timed per query on SciFact (7k rows)
and on 1M rows, the list wins below one posting per row and the pass from about there
(docs/benchmarks.md, "The compiled loop")."""


@njit(cache=True, nogil=True)
def top(rows_a, tf_a, lo_a, hi_a, rows_b, tf_b, lo_b, hi_b, weight, norm, alive,
        use_alive, mask, use_mask, scores, limit):
    """One query over two segments: the allowed rows scoring at least the ``limit``-th
    best score (ties at the boundary all kept) and their scores. ``scores`` is all zeros
    on entry (one per row) and again on return."""
    total = 0
    for t in range(lo_a.shape[0]):
        total += hi_a[t] - lo_a[t]
    for t in range(lo_b.shape[0]):
        total += hi_b[t] - lo_b[t]
    if total * DENSE_SHARE >= scores.shape[0]:
        add_dense(rows_a, tf_a, lo_a, hi_a, weight, norm, alive, use_alive, scores)
        add_dense(rows_b, tf_b, lo_b, hi_b, weight, norm, alive, use_alive, scores)
        return select_dense(scores, mask, use_mask, limit)
    touched = np.empty(total, dtype=np.int64)
    n = accumulate(rows_a, tf_a, lo_a, hi_a, weight, norm, alive, use_alive, scores,
                   touched, 0)
    n = accumulate(rows_b, tf_b, lo_b, hi_b, weight, norm, alive, use_alive, scores,
                   touched, n)
    m = 0
    values = np.empty(n, dtype=np.float64)
    for i in range(n):
        r = touched[i]
        v = scores[r]
        scores[r] = 0.0
        if use_mask and not mask[r]:
            continue
        touched[m] = r
        values[m] = v
        m += 1
    if m > limit:
        kth = kth_best(values, m, limit)
        keep = 0
        for i in range(m):
            if values[i] >= kth:
                touched[keep] = touched[i]
                values[keep] = values[i]
                keep += 1
        m = keep
    return touched[:m].copy(), values[:m].copy()


@njit(cache=True, nogil=True)
def add_dense(rows, tf, lo, hi, weight, norm, alive, use_alive, scores):
    """:func:`accumulate` without the list of rows touched."""
    for t in range(lo.shape[0]):
        w = weight[t]
        for p in range(lo[t], hi[t]):
            r = rows[p]
            if use_alive and not alive[r]:
                continue
            f = np.float64(tf[p])
            scores[r] += (w * f) / (f + norm[r])


@njit(cache=True, nogil=True)
def select_dense(scores, mask, use_mask, limit):
    """:func:`top`'s result read from the whole score array, which is then zeroed. The
    passes are written without a branch that depends on whether a row scored (about half
    of them do, at random: a mispredicted branch per row made this pass ten times slower)."""
    n = scores.shape[0]
    heap = np.zeros(limit, dtype=np.float64)  # scores are > 0: zeros are "nothing yet"
    m = 0
    for i in range(n):
        v = scores[i]
        ok = v > 0.0
        if use_mask:
            ok = ok & mask[i]
        m += ok
        if v > heap[0] and ok:
            heap[0] = v
            _sift(heap, 0, limit)
    # every allowed row when there are no more than ``limit``: any score > 0 reaches this
    kth = heap[0] if m > limit else 5e-324
    keep = 0
    for i in range(n):
        if scores[i] >= kth and (not use_mask or mask[i]):
            keep += 1
    out = np.empty(keep, dtype=np.int64)
    values = np.empty(keep, dtype=np.float64)
    j = 0
    for i in range(n):
        v = scores[i]
        if v >= kth and (not use_mask or mask[i]):
            out[j] = i
            values[j] = v
            j += 1
    scores[:] = 0.0
    return out, values


@njit(cache=True, nogil=True)
def spans(terms, indptr, rows, hashes, alive, use_alive, df):
    """Per query term hash, the start and end of its postings in one segment (equal when
    the segment lacks it: sorted ``terms`` searched as ``np.searchsorted`` does), its
    postings (on live rows, with ``use_alive``) added to ``df``."""
    n = terms.shape[0]
    lo = np.zeros(hashes.shape[0], dtype=np.int64)
    hi = np.zeros(hashes.shape[0], dtype=np.int64)
    for t in range(hashes.shape[0]):
        h = hashes[t]
        a = 0
        b = n
        while a < b:
            m = (a + b) >> 1
            if terms[m] < h:
                a = m + 1
            else:
                b = m
        if a < n and terms[a] == h:
            lo[t] = indptr[a]
            hi[t] = indptr[a + 1]
            if use_alive:
                c = 0
                for p in range(lo[t], hi[t]):
                    if alive[rows[p]]:
                        c += 1
                df[t] += c
            else:
                df[t] += hi[t] - lo[t]
    return lo, hi
