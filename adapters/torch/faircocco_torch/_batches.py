"""Mini-batches of ``(X, y, sensitive)`` triples, in a seeded order."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import torch
from torch.utils.data import DataLoader, Dataset

Triple = tuple[Any, torch.Tensor, torch.Tensor]
#: A triple of tensors with a row each: features, targets and encoded sensitive attributes.
TensorTriple = tuple[torch.Tensor, torch.Tensor, torch.Tensor]


class TripleBatches:
    """Batches of a tensor triple ``(X, y, sensitive)`` or of a Dataset yielding such triples.

    The rows of each batch come from one seeded permutation (``generator``), for tensors and
    Datasets alike, so both give the same batches; a final batch of a single row is merged into
    the one before, since a fairness statistic needs two rows. Tensor triples are sliced
    directly (no per-row collation); a Dataset's rows are collated by a
    :class:`~torch.utils.data.DataLoader`.
    """

    def __init__(
        self,
        data: Any,
        batch_size: int,
        *,
        shuffle: bool,
        generator: torch.Generator | None,
        argument: str = "train_data",
    ) -> None:
        self.batch_size = batch_size
        self.shuffle = shuffle
        self.generator = generator
        self._tensors: TensorTriple | None = None
        self._dataset: Dataset[Any] | None = None
        if isinstance(data, tuple | list):
            self._tensors = check_triple(data, argument)
        elif isinstance(data, Dataset):
            self._dataset = data
        else:
            raise TypeError(
                f"{argument} must be a tuple (X, y, sensitive) of tensors or a torch Dataset "
                f"yielding such triples; got {type(data).__name__}."
            )

    def __len__(self) -> int:
        return len(self._starts(self._rows()))

    def sensitive_and_outcomes(self) -> tuple[torch.Tensor, torch.Tensor]:
        """The sensitive attributes and outcomes of every row (a Dataset: in one pass, in
        order), on which a penalty fits its kernels as on the whole training set."""
        if self._tensors is not None:
            return self._tensors[2], self._tensors[1]
        batches = list(self._loaded([list(range(self._rows()))]))
        return batches[0][2], batches[0][1]

    def __iter__(self) -> Iterator[Triple]:
        n = self._rows()
        order = torch.randperm(n, generator=self.generator) if self.shuffle else torch.arange(n)
        starts = self._starts(n)
        index_batches = [
            order[start : (starts[k + 1] if k + 1 < len(starts) else n)]
            for k, start in enumerate(starts)
        ]
        if self._tensors is None:
            yield from self._loaded([rows.tolist() for rows in index_batches])
            return
        x, y, s = self._tensors
        for rows in index_batches:
            rows = rows.to(x.device)
            yield x[rows], y[rows], s[rows]

    def _rows(self) -> int:
        if self._tensors is not None:
            return int(self._tensors[0].shape[0])
        return len(self._dataset)  # type: ignore[arg-type]

    def _starts(self, n: int) -> list[int]:
        """First row of each batch; a last batch of a single row joins the one before."""
        starts = list(range(0, n, self.batch_size))
        if len(starts) > 1 and n - starts[-1] < 2:
            starts.pop()
        return starts

    def _loaded(self, index_batches: list[list[int]]) -> Iterator[Triple]:
        """The Dataset's rows of each batch, collated by a DataLoader."""
        loader = DataLoader(self._dataset, batch_sampler=index_batches)  # type: ignore[arg-type]
        for batch in loader:
            if not isinstance(batch, tuple | list) or len(batch) != 3:
                raise TypeError(
                    "a Dataset passed to fit_fair must yield (X, y, sensitive) triples; got a "
                    f"batch of type {type(batch).__name__}."
                )
            yield batch[0], batch[1], batch[2]


def check_triple(data: Any, argument: str) -> TensorTriple:
    """Check an ``(X, y, sensitive)`` triple of tensors with the same number of rows."""
    if len(data) != 3:
        raise ValueError(f"{argument} must be a triple (X, y, sensitive); got {len(data)} items.")
    names = ("X", "y", "sensitive")
    for name, item in zip(names, data, strict=True):
        if not isinstance(item, torch.Tensor):
            raise TypeError(
                f"{argument}: {name} must be a torch tensor; got {type(item).__name__}."
            )
    lengths = [int(item.shape[0]) for item in data]
    if len(set(lengths)) != 1:
        raise ValueError(
            f"{argument}: X, y and sensitive must have the same number of rows; got {lengths}."
        )
    if lengths[0] < 2:
        raise ValueError(f"{argument} has {lengths[0]} row(s); at least 2 are needed.")
    return data[0], data[1], data[2]
