"""The block tridiagonal factorisation solves and inverts as dense algebra does."""

from __future__ import annotations

import numpy as np
import pytest

from niwa.ladder.blocks import BlockTridiagonal, Pattern, breadth_first, partition


def banded(n: int, reach: int, seed: int) -> tuple[np.ndarray, BlockTridiagonal]:
    """A random positive definite matrix whose rows reach at most ``reach`` columns
    back, dense and in blocks of at least 4 rows."""
    rng = np.random.default_rng(seed)
    rows, cols, values = [], [], []
    for i in range(n):
        for j in range(max(0, i - reach), i):
            if rng.random() < 0.5:
                v = -rng.random()
                rows += [i, j]
                cols += [j, i]
                values += [v, v]
    dense = np.zeros((n, n))
    np.add.at(dense, (rows, cols), values)
    diagonal = -dense.sum(axis=1) + rng.random(n) + 0.1  # diagonally dominant
    dense += np.diag(diagonal)
    pattern = Pattern.of(n, np.array(rows), np.array(cols), smallest=4)
    matrix = pattern.matrix(diagonal, np.array(values))
    return dense, matrix


def test_partition_keeps_every_entry_in_its_block_or_the_one_before() -> None:
    low = [0, 0, 1, 1, 2, 5, 3, 6, 7, 8]
    starts = partition(low, smallest=2)
    block = np.repeat(np.arange(len(starts) - 1), np.diff(starts))
    assert starts[0] == 0 and starts[-1] == len(low)
    assert all(block[i] - block[j] <= 1 for i, j in enumerate(low))
    assert len(starts) > 3


def test_block_solve_equals_the_dense_solve() -> None:
    dense, matrix = banded(40, 5, seed=1)
    assert len(matrix.diagonal) > 3
    b = np.arange(40.0)
    assert matrix.factor().solve(b) == pytest.approx(np.linalg.solve(dense, b), rel=1e-9)


def test_block_inverse_diagonal_equals_the_dense_inverse_diagonal() -> None:
    dense, matrix = banded(40, 5, seed=2)
    expected = np.diagonal(np.linalg.inv(dense))
    assert matrix.factor().inverse_diagonal() == pytest.approx(expected, rel=1e-9)


def test_a_matrix_that_is_not_positive_definite_is_refused() -> None:
    pattern = Pattern.of(2, np.array([0, 1]), np.array([1, 0]))
    matrix = pattern.matrix(np.array([1.0, 1.0]), np.array([-2.0, -2.0]))
    with pytest.raises(ArithmeticError):
        matrix.factor()


def test_breadth_first_keeps_neighbours_close() -> None:
    # A path 0-3-1-4-2 numbered out of order: breadth-first from an end walks it.
    edges = [(0, 3), (3, 1), (1, 4), (4, 2)]
    rows = np.array([i for i, j in edges] + [j for i, j in edges])
    cols = np.array([j for i, j in edges] + [i for i, j in edges])
    assert breadth_first(5, rows, cols, start=0).tolist() == [0, 3, 1, 4, 2]


def test_breadth_first_reaches_rows_without_entries() -> None:
    order = breadth_first(4, np.array([0, 1]), np.array([1, 0]), start=1)
    assert order.tolist() == [1, 0, 2, 3]
