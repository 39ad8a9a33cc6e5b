"""The paper's split: 60/20/20 at random, or the official test rows and 75/25 of the rest."""

from __future__ import annotations

import numpy as np

from ._dataset import Split

TRAIN, VALIDATION, TEST = 0.6, 0.2, 0.2


def check_random_state(random_state: object) -> int | None:
    """A seed: a non-negative integer, or ``None`` for fresh entropy."""
    if random_state is None:
        return None
    if (
        isinstance(random_state, bool)
        or not isinstance(random_state, int | np.integer)
        or random_state < 0
    ):
        raise ValueError(
            f"random_state={random_state!r} is not valid; expected a non-negative integer or None."
        )
    return int(random_state)


def make_split(
    y: np.ndarray,
    *,
    stratify: bool,
    test: np.ndarray | None,
    random_state: int | None,
    test_label: str = "fixed test rows",
) -> Split:
    """Split rows at random for one seed, stratified by ``y`` when ``stratify``.

    Without ``test``: 60 % train, 20 % validation, 20 % test. With a boolean ``test`` mask: the
    marked rows are the test part and the others are split 75/25 into train and validation, which
    is 60/20/20 overall when the test rows are a fifth of the data; ``test_label`` says where
    those rows come from in :attr:`Split.source`. Within each stratum the sizes
    are rounded, so the overall fractions can differ from the targets by a row per class.
    """
    n = len(y)
    rng = np.random.default_rng(random_state)
    strata = _strata(y) if stratify else [np.arange(n)]
    seed = "fresh entropy" if random_state is None else f"seed {random_state}"
    how = ", stratified by y" if stratify else ""
    if test is None:
        parts = _allocate(strata, (TRAIN, VALIDATION, TEST), rng)
        source = f"random 60/20/20{how} ({seed})"
    else:
        rest = [rows[~test[rows]] for rows in strata]
        kept = TRAIN + VALIDATION
        train, validation = _allocate(rest, (TRAIN / kept, VALIDATION / kept), rng)
        parts = [train, validation, np.flatnonzero(test)]
        source = (
            f"{test_label} ({int(test.sum())} rows); random 75/25 train/validation of the "
            f"other rows{how} ({seed})"
        )
    for part, rows in zip(("train", "validation", "test"), parts, strict=True):
        if len(rows) == 0:
            raise ValueError(
                f"the {part} part of the split is empty: {n} rows are too few to split."
            )
    return Split(train=parts[0], validation=parts[1], test=parts[2], source=source)


def _strata(y: np.ndarray) -> list[np.ndarray]:
    _, codes = np.unique(y, return_inverse=True)
    order = np.argsort(codes, kind="stable")
    bounds = np.flatnonzero(np.diff(codes[order])) + 1
    return np.split(order, bounds)


def _allocate(
    strata: list[np.ndarray], fractions: tuple[float, ...], rng: np.random.Generator
) -> list[np.ndarray]:
    """Shuffle each stratum and cut it by ``fractions`` (the last part takes the remainder)."""
    parts: list[list[np.ndarray]] = [[] for _ in fractions]
    for rows in strata:
        shuffled = rng.permutation(rows)
        sizes = [round(f * len(rows)) for f in fractions[:-1]]
        cuts = np.cumsum(sizes)
        for j, piece in enumerate(np.split(shuffled, cuts)):
            parts[j].append(piece)
    return [np.sort(np.concatenate(pieces)) for pieces in parts]
