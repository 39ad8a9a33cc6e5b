"""A prepared table and a seed in, a :class:`Dataset` with its split out."""

from __future__ import annotations

from ._dataset import Dataset, Task
from ._source import LoadedTable
from ._split import make_split


def assemble(
    table: LoadedTable,
    *,
    name: str,
    task: Task,
    description: str,
    random_state: int | None,
    test_label: str = "fixed test rows",
) -> Dataset:
    """The dataset of one seed from a prepared (typed, encoded) table.

    The frames are shallow copies: under pandas copy-on-write an edit of the returned frames
    copies the data first, so a cached table is never changed through a dataset.
    """
    split = make_split(
        table.y.to_numpy(),
        stratify=task == "classification",
        test=table.test,
        random_state=random_state,
        test_label=test_label,
    )
    return Dataset(
        name=name,
        task=task,
        X=table.X.copy(deep=False),
        y=table.y.copy(deep=False),
        sensitive=table.sensitive.copy(deep=False),
        split=split,
        description=description,
    )
