"""The paper's network: two hidden ReLU layers whose width follows the input size."""

from __future__ import annotations

from collections.abc import Sequence

from torch import nn

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
        Widths of the hidden layers; default two layers of :func:`hidden_width` units.

    Returns
    -------
    torch.nn.Sequential
        Outputs of shape ``(n,)`` when ``n_outputs == 1``, else ``(n, n_outputs)``.

    Examples
    --------
    >>> import torch
    >>> from faircocco_torch import paper_mlp
    >>> paper_mlp(12, 1)(torch.zeros(5, 12)).shape
    torch.Size([5])
    """
    widths = (
        [hidden_width(n_features)] * 2
        if hidden_layer_sizes is None
        else [int(w) for w in hidden_layer_sizes]
    )
    layers: list[nn.Module] = []
    previous = n_features
    for width in widths:
        layers += [nn.Linear(previous, width), nn.ReLU()]
        previous = width
    layers.append(nn.Linear(previous, n_outputs))
    if n_outputs == 1:
        layers.append(nn.Flatten(0))
    return nn.Sequential(*layers)
