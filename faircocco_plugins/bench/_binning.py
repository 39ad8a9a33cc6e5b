"""The groups a careful user builds for a method that groups rows by value.

fairlearn's and AIF360's group methods treat every distinct value of an attribute as a group,
so a continuous attribute (age, a share of a population) must be cut first. The cut points are
quantiles of the training rows, fitted once and applied to every other row, and each row's
group crosses every attribute's: ``"sex=Male, race=White, age<=37"``. The bins are the fairness
targets' (:func:`faircocco_plugins.targets.group_bins`), at the median or the quartiles.
"""

from __future__ import annotations

import pandas as pd

from ..targets import GroupBins, group_bins

#: The rows a group needs to be judged or protected on its own: a group of fewer has a rate of 0
#: or 1 by chance.
MIN_GROUP_ROWS = 30
#: Each group construction: the quantile bins of the training rows that cut a continuous
#: attribute (2: at the median; 4: at the quartiles).
GROUP_SCHEMES: dict[str, int] = {"median": 2, "quartiles": 4}


def fit_group_bins(sensitive: pd.DataFrame, scheme: str) -> GroupBins:
    """The groups of ``scheme`` fitted on training rows: each continuous attribute cut into the
    quantile bins :data:`GROUP_SCHEMES` names (:func:`faircocco_plugins.targets.group_bins`),
    every other attribute kept by its levels.

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
    return group_bins(sensitive, GROUP_SCHEMES[scheme])
