"""The datasets of the FairCOCCO paper, synthetic datasets with known ground truth, and yours.

:func:`load_dataset` returns a :class:`Dataset` (features, outcome, sensitive attributes and the
train/validation/test split of one seed) for any registered name; :func:`list_datasets` lists the
names with their attributes and whether their raw files are available here. Add a dataset with
:func:`register_dataset`, or from another distribution through an entry point in the group
:data:`ENTRY_POINT_GROUP` that loads to a :class:`DatasetSource`.
"""

from ._dataset import Dataset, Part, Split
from ._files import DatasetLoadError, DatasetUnavailableError
from ._registry import (
    ENTRY_POINT_GROUP,
    dataset_files,
    get_source,
    list_datasets,
    load_dataset,
    register_dataset,
    register_source,
)
from ._source import DataFile, DatasetSource, LoadedTable
from ._synthetic import make_fairness_dataset

__all__ = [
    "ENTRY_POINT_GROUP",
    "DataFile",
    "Dataset",
    "DatasetLoadError",
    "DatasetSource",
    "DatasetUnavailableError",
    "LoadedTable",
    "Part",
    "Split",
    "dataset_files",
    "get_source",
    "list_datasets",
    "load_dataset",
    "make_fairness_dataset",
    "register_dataset",
    "register_source",
]
