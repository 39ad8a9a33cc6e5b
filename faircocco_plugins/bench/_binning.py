"""The groups a careful user builds for a method that groups rows by value.

fairlearn's and AIF360's group methods treat every distinct value of an attribute as a group,
so a continuous attribute (age, a share of a population) must be cut first. The cut points are
quantiles of the training rows, fitted once and applied to every other row, and each row's
group crosses every attribute's: ``"sex=Male, race=White, age<=37"``.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._inputs.column_kinds import attribute_kind

#: The rows a group needs to be judged or protected on its own: a group of fewer has a rate of 0
#: or 1 by chance.
MIN_GROUP_ROWS = 30
#: Each group construction: the quantiles of the training rows that cut a continuous attribute.
GROUP_SCHEMES: dict[str, tuple[float, ...]] = {
    "median": (0.5,),
    "quartiles": (0.25, 0.5, 0.75),
}


@dataclass(frozen=True)
class GroupBins:
    """How rows fall into groups: each attribute in order, and the cut points of the
    continuous ones, fitted on training rows (:func:`fit_group_bins`).

    A value at a cut point falls in the lower bin, as with :func:`pandas.qcut`.

    Attributes
    ----------
    columns : tuple of str
        The attributes, in the order their parts appear in a group's name.
    cuts : mapping of str to tuple of float
        The increasing cut points of each continuous attribute.
    """

    columns: tuple[str, ...]
    cuts: Mapping[str, tuple[float, ...]]

    def labels(self, sensitive: pd.DataFrame) -> np.ndarray:
        """Each row's group name: its bin of every continuous attribute, crossed with its level
        of every other one.

        Parameters
        ----------
        sensitive : pandas.DataFrame
            The attributes the bins were fitted on (same columns), any rows.

        Returns
        -------
        numpy.ndarray of str
            One name per row, such as ``"sex=Male, age<=37"`` or ``"sex=Female, 37<age<=48"``.

        Examples
        --------
        >>> import pandas as pd
        >>> from faircocco_plugins.bench._binning import fit_group_bins
        >>> train = pd.DataFrame({"sex": ["f", "m", "f", "m"], "age": [20.0, 30.0, 40.0, 50.0]})
        >>> bins = fit_group_bins(train, "median")
        >>> bins.labels(pd.DataFrame({"sex": ["m"], "age": [60.0]})).tolist()
        ['sex=m, age>35']
        """
        frame = _checked(sensitive)
        if tuple(str(c) for c in frame.columns) != self.columns:
            raise ValueError(
                f"sensitive has the columns {[str(c) for c in frame.columns]}; the groups were "
                f"fitted on {list(self.columns)}."
            )
        parts = [
            _bin_names(name, frame.iloc[:, i], self.cuts[name])
            if name in self.cuts
            else np.asarray([f"{name}={value}" for value in frame.iloc[:, i]], dtype=object)
            for i, name in enumerate(self.columns)
        ]
        return np.asarray([", ".join(row) for row in zip(*parts, strict=True)], dtype=str)


def fit_group_bins(sensitive: pd.DataFrame, scheme: str) -> GroupBins:
    """The groups of ``scheme`` fitted on training rows: each continuous attribute cut at the
    quantiles :data:`GROUP_SCHEMES` names (cut points that ties make equal merge), every other
    attribute kept by its levels.

    Parameters
    ----------
    sensitive : pandas.DataFrame
        The training rows' sensitive attributes with their raw types, no missing values.
    scheme : {"median", "quartiles"}

    Returns
    -------
    GroupBins

    Examples
    --------
    >>> import pandas as pd
    >>> from faircocco_plugins.bench._binning import fit_group_bins
    >>> train = pd.DataFrame({"age": [20.0, 30.0, 40.0, 50.0, 60.0]})
    >>> fit_group_bins(train, "quartiles").cuts
    {'age': (30.0, 40.0, 50.0)}
    """
    if scheme not in GROUP_SCHEMES:
        raise ValueError(f"scheme={scheme!r} is not valid; expected one of {list(GROUP_SCHEMES)}.")
    frame = _checked(sensitive)
    columns = tuple(str(c) for c in frame.columns)
    cuts = {
        name: tuple(float(c) for c in np.unique(np.quantile(values, GROUP_SCHEMES[scheme])))
        for name, (_, values) in zip(columns, frame.items(), strict=True)
        if attribute_kind(values) == "continuous"
    }
    return GroupBins(columns, cuts)


def _checked(sensitive: pd.DataFrame) -> pd.DataFrame:
    if not isinstance(sensitive, pd.DataFrame):
        raise TypeError(f"sensitive must be a pandas DataFrame; got {type(sensitive).__name__}.")
    if sensitive.shape[1] == 0:
        raise ValueError("sensitive has no columns; give at least one attribute.")
    for name, column in sensitive.items():
        if column.isna().any():
            raise ValueError(f"sensitive column {name!r} has missing values.")
    return sensitive


def _bin_names(name: str, column: pd.Series, cuts: tuple[float, ...]) -> np.ndarray:
    """Each value's bin as ``age<=28``, ``28<age<=37`` or ``age>48``."""
    values = column.to_numpy(dtype=np.float64)
    shown = [f"{c:g}" for c in cuts]
    names = [
        f"{name}<={shown[0]}",
        *(f"{low}<{name}<={high}" for low, high in itertools.pairwise(shown)),
        f"{name}>{shown[-1]}",
    ]
    return np.asarray(names, dtype=object)[np.searchsorted(cuts, values, side="left")]
