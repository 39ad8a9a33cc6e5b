"""Kernels are data: every entry point, the options' documentation and the command line take the
registered kernels from the one registry, and an unknown name is refused by name."""

from __future__ import annotations

import numpy as np
import pytest

from faircocco_plugins import (
    BatchStatistic,
    faircocco_report,
    faircocco_score,
    faircocco_statistic,
    independence_test,
)
from faircocco_plugins._kernels.registry import KERNELS, kernel_named
from faircocco_plugins._options import OPTION_DOCS, STATISTIC_OPTIONS, options_table
from faircocco_plugins.cli import _parser
from faircocco_plugins.plugins import check_statistic_options

rng = np.random.default_rng(0)
A = rng.normal(size=40)
Y = A + rng.normal(size=40)
ENTRY_POINTS = [
    lambda **k: faircocco_score(Y, A, **k),
    lambda **k: faircocco_statistic(Y, A, **k),
    lambda **k: faircocco_report(Y, A, **k),
    lambda **k: independence_test(Y, A, **k),
    lambda **k: BatchStatistic(notion="dp", **k),
    check_statistic_options,
]


@pytest.mark.parametrize("entry_point", ENTRY_POINTS)
def test_every_entry_point_refuses_an_unknown_kernel_naming_the_registered_ones(entry_point):
    names = ", ".join(repr(name) for name in KERNELS)
    with pytest.raises(
        ValueError, match=rf"^kernel='nope' is not valid; expected one of \[{names}\]"
    ):
        entry_point(kernel="nope")


@pytest.mark.parametrize("name", list(KERNELS))
def test_every_registered_kernel_is_an_option_value_in_the_docs_and_the_command_line(name):
    assert STATISTIC_OPTIONS["kernel"].rule.values == tuple(KERNELS)
    assert f'"{name}"' in OPTION_DOCS["kernel"].splitlines()[0]
    assert kernel_named(name).description in OPTION_DOCS["kernel"]
    assert f"'{name}'" in options_table()
    args = _parser().parse_args(["score", "t.csv", "--pred", "p", "--sensitive", "a"])
    assert name in args.score_parser._option_string_actions["--kernel"].choices
    assert args.kernel == STATISTIC_OPTIONS["kernel"].defaults["score"]


def test_kernel_named_refuses_an_unknown_name():
    with pytest.raises(ValueError, match=r"^kernel='nope' is not valid"):
        kernel_named("nope")


def test_a_kernel_without_a_gram_gradient_is_differentiated_by_autograd(monkeypatch):
    """The host route's closed form needs the kernel's Gram gradient; without one, autograd
    differentiates the same statistic, to the closed form's gradient."""
    torch = pytest.importorskip("torch")
    gaussian = kernel_named("gaussian")
    statistic = BatchStatistic(notion="dp", eps=0.3).fit(A)

    def gradient() -> np.ndarray:
        pred = torch.tensor(Y, requires_grad=True)
        statistic(pred, A).backward()
        return pred.grad.numpy()

    closed_form = gradient()
    monkeypatch.setattr(gaussian, "gram_gradient", None)
    np.testing.assert_allclose(gradient(), closed_form, rtol=1e-9, atol=1e-12)


def test_the_protocol_s_default_column_is_the_kernel_s_own_in_place_one():
    """A kernel may leave out the in-place column of incomplete Cholesky: the protocol's
    default, from its Gram matrix, gives the same column for one input and for a stack."""
    from faircocco_plugins._kernels.kernel import Kernel

    for kernel in KERNELS.values():
        z = rng.normal(size=(2, 9, 3))
        columns = [np.ascontiguousarray(z[0, :, j]) for j in range(3)]
        stacked = [np.ascontiguousarray(z[:, :, j]) for j in range(3)]
        point = z[0, 4].tolist()
        points = [z[:, 4, j : j + 1] for j in range(3)]
        for cols, at, shape in ((columns, point, (9,)), (stacked, points, (2, 9))):
            own = kernel.column_into(cols, at, np.empty(shape), np.empty(shape))
            default = Kernel.column_into(kernel, cols, at, np.empty(shape), np.empty(shape))
            np.testing.assert_allclose(default, own, rtol=1e-15, atol=0)
