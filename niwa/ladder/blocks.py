"""Symmetric positive definite matrices that are block tridiagonal, as the leaderboard's
information matrix is once bots are numbered breadth-first over who met whom (the
scheduler seats bots near each other in rating, so few pairs reach far).

Factored by Schur complements block by block (numpy for each block's dense algebra):
solves and the diagonal of the inverse cost about m·b³ for m blocks of size b, not n³.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray
from threadpoolctl import ThreadpoolController

Vector = NDArray[np.float64]
Matrix = NDArray[np.float64]
Indices = NDArray[np.intp]

#: Blocks are at least this big: below it numpy's per-call cost outweighs the flops.
SMALLEST = 48


@functools.cache
def one_blas_thread() -> None:
    """Keep BLAS to one thread in this process from now on: on blocks this small its
    threads only wait for each other and for the cores other processes hold, and
    setting the limit back and forth around each fit costs milliseconds."""
    ThreadpoolController().limit(limits=1, user_api="blas")


def sums(index: Indices, weights: Vector, n: int) -> Vector:
    """Per slot below ``n``, the sum of the ``weights`` whose ``index`` is that slot."""
    return np.bincount(index, weights, n).astype(np.float64, copy=False)


def partition(low: Sequence[int], smallest: int = SMALLEST) -> list[int]:
    """Block starts, then n: row i has entries from column ``low[i]`` on, and each block
    is cut where no later row reaches back past the start of the block being closed,
    so every entry lies in its row's block or the block before."""
    n = len(low)
    reach = np.minimum.accumulate(np.asarray(low, dtype=np.intp)[::-1])[::-1].tolist()
    starts = [0]
    for i in range(1, n):
        if i - starts[-1] >= smallest and reach[i] >= starts[-1]:
            starts.append(i)
    starts.append(n)
    return starts


def breadth_first(n: int, rows: Indices, cols: Indices, start: int) -> Indices:
    """0..n-1 in breadth-first order over the entries (``rows``, ``cols``, both orders
    given) from ``start``, then from each row not reached yet, a row's neighbours
    fewest-entries first (Cuthill-McKee): rows with an entry in common stay close, so
    the blocks stay small."""
    degree = np.bincount(rows, minlength=n)
    by_row = np.lexsort((degree[cols], rows))
    neighbours = cols[by_row].tolist()
    bounds = np.searchsorted(rows[by_row], np.arange(n + 1)).tolist()
    seen = [False] * n
    out: list[int] = []
    for root in [start, *range(n)]:
        if seen[root]:
            continue
        seen[root] = True
        out.append(root)
        head = len(out) - 1
        while head < len(out):
            v = out[head]
            head += 1
            for u in neighbours[bounds[v] : bounds[v + 1]]:
                if not seen[u]:
                    seen[u] = True
                    out.append(u)
    return np.array(out, np.intp)


@dataclass
class Pattern:
    """Where the entries of a symmetric matrix with non-zeros at given places fall in
    its blocks: worked out once for the many matrices of one pattern (Newton's steps)."""

    starts: list[int]
    sizes: list[int]
    offsets: list[tuple[int, int]]  # per block: where its diagonal block and the one below go
    length: int
    kept: Indices  # the entries (of those given) on or below the diagonal blocks
    flat: Indices  # where each kept entry goes in the buffer, then each diagonal entry
    fill: float

    @classmethod
    def of(
        cls, n: int, rows: Indices, cols: Indices, fill: float = 0.0, smallest: int = SMALLEST
    ) -> Pattern:
        """Non-zeros at (``rows``, ``cols``), which must hold both (i, j) and (j, i),
        and on the diagonal; ``fill`` is added to every entry."""
        low = np.arange(n)
        if fill:
            low[:] = 0  # every entry is non-zero: one dense block
        else:
            np.minimum.at(low, rows, cols)
        starts = partition(low.tolist(), smallest)
        sizes = np.diff(starts)
        block = np.repeat(np.arange(len(sizes)), sizes)
        first = np.asarray(starts[:-1])
        # One flat buffer: each diagonal block, then the block below it.
        lengths = np.column_stack([sizes * sizes, np.append(sizes[1:] * sizes[:-1], 0)]).ravel()
        offsets = np.concatenate([[0], np.cumsum(lengths)[:-1]]).reshape(-1, 2)
        rb, cb = block[rows], block[cols]
        same = np.flatnonzero(rb == cb)
        under = np.flatnonzero(rb == cb + 1)  # the entries above the blocks mirror these
        flat = np.concatenate([
            offsets[rb[same], 0] + (rows[same] - first[rb[same]]) * sizes[rb[same]]
            + cols[same] - first[rb[same]],
            offsets[cb[under], 1] + (rows[under] - first[rb[under]]) * sizes[cb[under]]
            + cols[under] - first[cb[under]],
            offsets[block, 0] + (np.arange(n) - first[block]) * (sizes[block] + 1),
        ])  # fmt: skip
        return cls(
            starts, sizes.tolist(), [(int(d), int(e)) for d, e in offsets],
            int(lengths.sum()), np.concatenate([same, under]), flat, fill,
        )  # fmt: skip

    def matrix(self, diagonal: Vector, values: Vector) -> BlockTridiagonal:
        """The matrix with ``values`` at the entries given and ``diagonal``."""
        buffer = sums(self.flat, np.concatenate([values[self.kept], diagonal]), self.length)
        sizes, offsets = self.sizes, self.offsets
        diagonals = [
            (buffer[o : o + s * s] + self.fill).reshape(s, s)
            for (o, _), s in zip(offsets, sizes, strict=True)
        ]
        belows = [
            buffer[o : o + s1 * s0].reshape(s1, s0)
            for (_, o), s0, s1 in zip(offsets, sizes, sizes[1:], strict=False)
        ]
        return BlockTridiagonal(self.starts, diagonals, belows)


@dataclass
class BlockTridiagonal:
    """The matrix by its diagonal blocks and the blocks just below them."""

    starts: list[int]
    diagonal: list[Matrix]
    below: list[Matrix]  # below[k]: rows of block k+1, columns of block k

    def factor(self) -> Factor:
        """The inverses of the Schur complements S_k = D_k - E_{k-1} S_{k-1}⁻¹ E_{k-1}ᵀ."""
        inverses: list[Matrix] = []
        for k, d in enumerate(self.diagonal):
            if k:
                e = self.below[k - 1]
                d = d - e @ inverses[-1] @ e.T
            try:
                np.linalg.cholesky(d)  # fails unless positive definite
                inverses.append(np.linalg.inv(d).astype(np.float64, copy=False))
            except np.linalg.LinAlgError:
                raise ArithmeticError("singular matrix") from None
        return Factor(self, inverses)


@dataclass
class Factor:
    """A block LDLᵀ factorisation of :class:`BlockTridiagonal` (D = the Schur complements)."""

    matrix: BlockTridiagonal
    inverses: list[Matrix]

    def solve(self, b: Vector) -> Vector:
        """x with matrix·x = b."""
        starts, below, inv = self.matrix.starts, self.matrix.below, self.inverses
        y = [b[s:e] for s, e in itertools.pairwise(starts)]
        for k in range(1, len(y)):
            y[k] = y[k] - below[k - 1] @ (inv[k - 1] @ y[k - 1])
        x = list(y)
        x[-1] = inv[-1] @ y[-1]
        for k in reversed(range(len(y) - 1)):
            x[k] = inv[k] @ (y[k] - below[k].T @ x[k + 1])
        return np.concatenate(x)

    def inverse_diagonal(self) -> Vector:
        """The diagonal of matrix⁻¹, from the last block up: with F = E_k S_k⁻¹, the
        inverse's diagonal block k is S_k⁻¹ + Fᵀ G_{k+1} F (G: the block below's)."""
        below, inv = self.matrix.below, self.inverses
        g = inv[-1]
        out = [np.diagonal(g)]
        for k in reversed(range(len(inv) - 1)):
            f = below[k] @ inv[k]
            g = inv[k] + f.T @ g @ f
            out.append(np.diagonal(g))
        return np.concatenate(out[::-1])
