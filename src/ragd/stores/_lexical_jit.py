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


@njit(cache=True, nogil=True)
def top(rows_a, tf_a, lo_a, hi_a, rows_b, tf_b, lo_b, hi_b, weight, norm, alive,
        use_alive, mask, use_mask, scores, limit):
    """One query over two segments: the allowed rows scoring at least the ``limit``-th
    best score (ties at the boundary all kept) and their scores. ``scores`` is all zeros
    on entry (one per row) and again on return: only the rows touched are reset."""
    total = 0
    for t in range(lo_a.shape[0]):
        total += hi_a[t] - lo_a[t]
    for t in range(lo_b.shape[0]):
        total += hi_b[t] - lo_b[t]
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
def live_counts(rows, lo, hi, alive, out):
    """Per term, how many of its postings ``lo[t]:hi[t]`` are live rows."""
    for t in range(lo.shape[0]):
        c = 0
        for p in range(lo[t], hi[t]):
            if alive[rows[p]]:
                c += 1
        out[t] += c
