"""The paper's network: two hidden ReLU layers whose width follows the input size."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from torch import nn

from faircocco_plugins.plugins import Interval, check_params

#: Narrowest and widest hidden layer of the default network (appendix B of the paper).
MIN_WIDTH, MAX_WIDTH = 40, 100


def hidden_width(n_features: int) -> int:
    """The default width of both hidden layers: ``min(100, max(40, 2 × n_features))``.

    The paper uses two hidden layers of 40 to 100 ReLU units, "depending on the complexity of
    the data". This rule makes the choice reproducible: twice the number of input features,
    clipped to that range (12 features give 40 units; 50 or more give 100).

    Parameters
    ----------
    n_features : int
        Number of input features.

    Returns
    -------
    int

    Examples
    --------
    >>> from faircocco_torch import hidden_width
    >>> hidden_width(12), hidden_width(35), hidden_width(104)
    (40, 70, 100)
    """
    return int(min(MAX_WIDTH, max(MIN_WIDTH, 2 * n_features)))


def paper_mlp(
    n_features: int, n_outputs: int, hidden_layer_sizes: Sequence[int] | None = None
) -> nn.Sequential:
    """The paper's model: ``Linear → ReLU → Linear → ReLU → Linear``.

    Parameters
    ----------
    n_features : int
        Number of input features.
    n_outputs : int
        Number of outputs (1 for a binary classifier's logit or a regression output; the
        number of classes otherwise).
    hidden_layer_sizes : sequence of int, optional
        Widths of the hidden layers, each at least 1 (``()``: none, a linear model); default
        two layers of :func:`hidden_width` units.

    Returns
    -------
    torch.nn.Sequential
        Outputs of shape ``(n,)`` when ``n_outputs == 1``, else ``(n, n_outputs)``.

    Raises
    ------
    TypeError, ValueError
        For ``hidden_layer_sizes`` that is not a sequence of integers >= 1, naming it.

    Examples
    --------
    >>> import torch
    >>> from faircocco_torch import paper_mlp
    >>> paper_mlp(12, 1)(torch.zeros(5, 12)).shape
    torch.Size([5])
    """
    widths = check_hidden_layer_sizes(hidden_layer_sizes)
    if widths is None:
        widths = (hidden_width(n_features),) * 2
    layers: list[nn.Module] = []
    previous = n_features
    for width in widths:
        layers += [nn.Linear(previous, width), nn.ReLU()]
        previous = width
    layers.append(nn.Linear(previous, n_outputs))
    if n_outputs == 1:
        layers.append(nn.Flatten(0))
    return nn.Sequential(*layers)


def check_hidden_layer_sizes(hidden_layer_sizes: Any) -> tuple[int, ...] | None:
    """``hidden_layer_sizes`` as a tuple of widths, each an integer >= 1 (``()``: no hidden
    layer, a linear model), or None; a ``TypeError`` or ``ValueError`` names the parameter.

    Examples
    --------
    >>> from faircocco_torch._network import check_hidden_layer_sizes
    >>> check_hidden_layer_sizes([64, 32])
    (64, 32)
    >>> check_hidden_layer_sizes((64, 0))
    Traceback (most recent call last):
        ...
    ValueError: hidden_layer_sizes[1]=0 is not valid; expected an integer >= 1.
    """
    if hidden_layer_sizes is None:
        return None
    if isinstance(hidden_layer_sizes, str | bytes) or not isinstance(hidden_layer_sizes, Iterable):
        raise TypeError(
            "hidden_layer_sizes must be None or a sequence of integers >= 1, such as (64, 64); "
            f"got {type(hidden_layer_sizes).__name__} {hidden_layer_sizes!r}."
        )
    widths = tuple(hidden_layer_sizes)
    names = [f"hidden_layer_sizes[{i}]" for i in range(len(widths))]
    check_params(
        dict(zip(names, widths, strict=True)), dict.fromkeys(names, Interval("integer", 1))
    )
    return tuple(int(w) for w in widths)
