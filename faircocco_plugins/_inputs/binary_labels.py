"""Binary labels read as scikit-learn reads them: which entries are the positive class."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from .variables import as_array

#: The label sets whose positive class goes without saying: 1 (``True`` equals 1).
_SETS_WITH_A_POSITIVE = ({0, 1}, {-1, 1})


def positive_labels(arguments: Mapping[str, Any], pos_label: Any = None) -> dict[str, np.ndarray]:
    """Where each argument holds the positive label, the arguments' labels read together.

    As in scikit-learn, labels in {0, 1}, {-1, 1} or {False, True} have the positive class 1
    (``True``); any other two labels, strings among them, need ``pos_label``. The arguments
    share one label set: outcomes in {0, 1} beside predictions in {-1, 1} are three labels.

    Parameters
    ----------
    arguments : mapping of str to array-like of shape (n,)
        Argument names (for messages) and their labels, e.g. ``{"y_true": ..., "y_pred": ...}``.
    pos_label : int, float, bool or str, optional
        The positive label; needed unless the labels are 0/1, -1/1 or booleans.

    Returns
    -------
    dict of str to numpy.ndarray of bool
        Each argument, ``True`` where it holds the positive label.

    Raises
    ------
    ValueError
        An argument that is not 1-D, has missing values, or holds scores (numbers that are not
        whole, such as probabilities); more than two labels; labels other than 0/1 or -1/1
        without ``pos_label``; a ``pos_label`` that is not one of two labels.

    Examples
    --------
    >>> from faircocco_plugins.plugins import positive_labels
    >>> positive_labels({"y_pred": [-1, 1, 1]})["y_pred"].tolist()
    [False, True, True]
    >>> positive_labels({"y_pred": ["no", "yes"]}, pos_label="yes")["y_pred"].tolist()
    [False, True]
    """
    arrays, levels = {}, []
    for name, values in arguments.items():
        arrays[name], present = _label_array(values, name)
        levels.extend(present)
    labels = sorted(set(levels), key=lambda label: (type(label).__name__, label))
    names = " and ".join(arrays)
    takes = "take" if len(arrays) > 1 else "takes"
    shown = "{" + ", ".join(repr(label) for label in labels) + "}"
    if pos_label is None:
        if not any(set(labels) <= labels_set for labels_set in _SETS_WITH_A_POSITIVE):
            raise ValueError(
                f"{names} {takes} values in {shown} and pos_label is not given: give labels "
                "in {0, 1} or {-1, 1}, or pass pos_label= naming the positive class."
            )
        pos_label = 1
    elif len(labels) > 2:
        raise ValueError(f"{names} {takes} {len(labels)} values {shown}; two labels are needed.")
    elif len(labels) == 2 and pos_label not in labels:
        raise ValueError(f"pos_label={pos_label!r} is not one of the labels {shown} of {names}.")
    if pos_label not in labels:  # one label, the negative one
        return {name: np.zeros(array.shape, dtype=bool) for name, array in arrays.items()}
    return {name: np.asarray(array == pos_label, dtype=bool) for name, array in arrays.items()}


def _label_array(values: Any, name: str) -> tuple[np.ndarray, list[Any]]:
    """``values`` as a 1-D array of labels, and its distinct labels; missing values and scores
    are refused."""
    array = as_array(values, name)
    if array.ndim != 1:
        raise ValueError(f"{name} must be 1-D labels; got shape {array.shape}.")
    if pd.isna(array).any():
        raise ValueError(f"{name} has missing values; drop those rows or fill them first.")
    levels = pd.unique(array).tolist()  # in the array's own dtype: fast for numbers and bools
    scores = [level for level in levels if _is_score(level)]
    if scores:
        raise ValueError(
            f"{name} holds scores, not labels (values such as {float(scores[0])!r}); threshold "
            f"them first, e.g. ({name} >= 0.5).astype(int)."
        )
    return array, levels


def _is_score(value: Any) -> bool:
    """A number that cannot be a class label: not a whole number."""
    return isinstance(value, float | np.floating) and not float(value).is_integer()
