"""The human figure <-> musculoskeletal mapping (Eq. 14-15) from Python, against numpy's own SVD."""
import itertools

import numpy as np
import pytest

import kinetrack as kt


def test_features_are_the_monomials():
    f = kt.PolynomialFeatures(3, 2)
    assert f.size == 10
    x = np.array([[0.5, -1.5, 2.0]])
    expected = [1.0] + [np.prod([x[0, i] for i in c]) for d in (1, 2)
                        for c in itertools.combinations_with_replacement(range(3), d)]
    np.testing.assert_allclose(f(x)[0], expected)
    assert f.term_name(4, ["a", "b", "c"]) == "a*a"


def test_fit_recovers_a_polynomial_map_and_truncates_like_numpy():
    rng = np.random.default_rng(1)
    x = rng.uniform(-1, 1, (150, 3))
    f = kt.PolynomialFeatures(3, 2)
    m_true = rng.normal(size=(2, f.size))
    y = f(x) @ m_true.T
    fit = kt.PolynomialMapFit(x, y, 2)
    assert fit.rank == 10
    np.testing.assert_allclose(fit.map(10).matrix, m_true, atol=1e-10)
    x_new = rng.uniform(-1, 1, (20, 3))
    np.testing.assert_allclose(fit.map(10)(x_new), f(x_new) @ m_true.T, atol=1e-9)
    # Truncated pseudo-inverse, the numpy way: F = U S V^T (features x samples), M_k = Y V_k S_k^-1 U_k^T.
    noisy = y + 0.1 * rng.normal(size=y.shape)
    fit = kt.PolynomialMapFit(x, noisy, 2)
    u, s, vt = np.linalg.svd(f(x).T, full_matrices=False)
    np.testing.assert_allclose(fit.singular_values, s, rtol=1e-10)
    for k in (1, 4, 10):
        m_k = noisy.T @ vt[:k].T @ np.diag(1 / s[:k]) @ u[:, :k].T
        np.testing.assert_allclose(fit.map(k).matrix, m_k, atol=1e-9)
        err = fit.rms_error_by_rank(x_new, f(x_new) @ m_true.T)
        pred = fit.map(k)(x_new)
        np.testing.assert_allclose(err[k - 1, :2], np.sqrt(np.mean((pred - f(x_new) @ m_true.T) ** 2, axis=0)),
                                   atol=1e-10)
        np.testing.assert_allclose(err[k - 1, 2], np.sqrt(np.mean((pred - f(x_new) @ m_true.T) ** 2)), atol=1e-10)


def test_bad_input_raises_value_error():
    x = np.zeros((5, 2))
    with pytest.raises(ValueError):
        kt.PolynomialMapFit(x, np.zeros((4, 1)), 2)
    bad = np.ones((5, 2))
    bad[3, 1] = np.nan
    with pytest.raises(ValueError, match="sample 3, row 1"):
        kt.PolynomialMapFit(bad, np.zeros((5, 1)), 1)
    fit = kt.PolynomialMapFit(np.random.default_rng(0).normal(size=(30, 2)), np.zeros((30, 1)), 1)
    with pytest.raises(ValueError):
        fit.map(0)
    with pytest.raises(ValueError):
        kt.PolynomialFeatures(0, 1)
