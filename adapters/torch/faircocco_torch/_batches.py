"""Mini-batches of ``(X, y, sensitive)`` triples, in a seeded order."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import torch
from torch.utils.data import DataLoader, Dataset

Triple = tuple[Any, torch.Tensor, torch.Tensor]


class TripleBatches:
    """Batches of a tensor triple ``(X, y, sensitive)`` or of a Dataset yielding such triples.

    Tensor triples are sliced directly (no per-row collation); a final batch of a single row is
    merged into the one before, since a fairness statistic needs two rows. Datasets go through
    a :class:`~torch.utils.data.DataLoader`, and single-row batches are skipped. The order comes
    from ``generator``, so it is reproducible.
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
        self._tensors: tuple[torch.Tensor, torch.Tensor, torch.Tensor] | None = None
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
        if self._tensors is not None:
            n = int(self._tensors[0].shape[0])
            count = max(1, n // self.batch_size + (n % self.batch_size >= 2))
            return count
        assert self._dataset is not None
        n = len(self._dataset)  # type: ignore[arg-type]
        return -(-n // self.batch_size)

    def sensitive_and_outcomes(self) -> tuple[torch.Tensor, torch.Tensor] | None:
        """The sensitive attributes and outcomes of every row, for tensor data (else None)."""
        if self._tensors is None:
            return None
        return self._tensors[2], self._tensors[1]

    def __iter__(self) -> Iterator[Triple]:
        if self._tensors is not None:
            yield from self._slices(self._tensors)
            return
        loader = DataLoader(
            self._dataset,  # type: ignore[arg-type]
            batch_size=self.batch_size,
            shuffle=self.shuffle,
            generator=self.generator,
        )
        for batch in loader:
            if not isinstance(batch, tuple | list) or len(batch) != 3:
                raise TypeError(
                    "a Dataset passed to fit_fair must yield (X, y, sensitive) triples; got a "
                    f"batch of type {type(batch).__name__}."
                )
            if int(batch[1].shape[0]) >= 2:
                yield batch[0], batch[1], batch[2]

    def _slices(self, tensors: tuple[torch.Tensor, torch.Tensor, torch.Tensor]) -> Iterator[Triple]:
        x, y, s = tensors
        n = int(x.shape[0])
        if self.shuffle:
            order = torch.randperm(n, generator=self.generator)
        else:
            order = torch.arange(n)
        order = order.to(x.device)
        starts = list(range(0, n, self.batch_size))
        if len(starts) > 1 and n - starts[-1] < 2:
            starts.pop()
        for k, start in enumerate(starts):
            stop = starts[k + 1] if k + 1 < len(starts) else n
            rows = order[start:stop]
            yield x[rows], y[rows], s[rows]


def check_triple(data: Any, argument: str) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
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
