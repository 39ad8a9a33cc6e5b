"""BLAS thread limits: scoped, restored whatever order overlapping blocks leave in, optional."""

from __future__ import annotations

import threading

import pytest
from threadpoolctl import ThreadpoolController

from faircocco_plugins import config_context, get_config, set_config
from faircocco_plugins._linalg.threads import single_blas_thread


def blas_threads() -> list[int]:
    return [
        lib.num_threads for lib in ThreadpoolController().select(user_api="blas").lib_controllers
    ]


@pytest.fixture
def two_threads():
    controller = ThreadpoolController().select(user_api="blas")
    before = blas_threads()
    for library in controller.lib_controllers:
        library.set_num_threads(2)
    yield
    for library, threads in zip(controller.lib_controllers, before, strict=True):
        library.set_num_threads(threads)


def test_a_block_runs_on_one_thread_and_restores_the_counts(two_threads):
    with single_blas_thread():
        assert set(blas_threads()) == {1}
    assert set(blas_threads()) == {2}


class FakeLibrary:
    """A BLAS controller that records its count: OpenBLAS may ignore a count set from a thread
    other than the main one, which would hide what the limit does."""

    def __init__(self) -> None:
        self.num_threads = 2

    def set_num_threads(self, threads: int) -> None:
        self.num_threads = threads


@pytest.fixture
def fake_libraries(monkeypatch):
    libraries = [FakeLibrary(), FakeLibrary()]
    monkeypatch.setattr("faircocco_plugins._linalg.threads._blas_libraries", lambda: libraries)
    return libraries


def test_overlapping_blocks_leaving_out_of_order_restore_the_counts(fake_libraries):
    # first in, first out: a per-call save and restore would leave one thread for good
    first_in, second_in, first_out = threading.Event(), threading.Event(), threading.Event()
    seen: dict[str, list[int]] = {}

    def first() -> None:
        with single_blas_thread():
            first_in.set()
            second_in.wait(5)
        first_out.set()

    def second() -> None:
        first_in.wait(5)
        with single_blas_thread():
            second_in.set()
            first_out.wait(5)
            seen["after the first left"] = [lib.num_threads for lib in fake_libraries]

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    assert seen["after the first left"] == [1, 1]  # the second block still runs on one thread
    assert [lib.num_threads for lib in fake_libraries] == [2, 2]


def test_many_threads_entering_and_leaving_restore_the_counts(fake_libraries):
    inside: list[int] = []

    def work() -> None:
        for _ in range(200):
            with single_blas_thread(), single_blas_thread():
                inside.extend(lib.num_threads for lib in fake_libraries)

    threads = [threading.Thread(target=work) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert set(inside) == {1}
    assert [lib.num_threads for lib in fake_libraries] == [2, 2]


def test_the_limit_can_be_turned_off(two_threads):
    with config_context(limit_blas_threads=False):
        assert get_config()["limit_blas_threads"] is False
        with single_blas_thread():
            assert set(blas_threads()) == {2}
    assert get_config()["limit_blas_threads"] is True
    with pytest.raises(TypeError, match="limit_blas_threads must be a bool"):
        set_config(limit_blas_threads="no")


def test_a_stream_is_limited_per_chunk_not_while_the_iterator_runs(two_threads):
    from faircocco_plugins import faircocco_score, make_synthetic

    people = make_synthetic(2000, random_state=0)
    seen: list[set[int]] = []

    def chunks():
        for start in range(0, 2000, 500):
            seen.append(set(blas_threads()))
            yield people.iloc[start : start + 500]

    streamed = faircocco_score("y_pred", ["sex", "age"], data=chunks())
    assert 0 < streamed < 1
    assert seen == [{2}] * 4
    assert set(blas_threads()) == {2}


@pytest.mark.parametrize("route", ["host", "device"])
def test_a_wide_attribute_side_is_formed_on_one_thread_on_either_route(
    route, two_threads, monkeypatch
):
    torch = pytest.importorskip("torch")
    import numpy as np

    from faircocco_plugins import BatchStatistic
    from faircocco_plugins._linalg import backend
    from faircocco_plugins._routes import choose

    rng = np.random.default_rng(0)
    # two binary attributes, four levels and a continuous one: a side wider than 32 columns
    a = np.column_stack([rng.integers(0, 2, 600), rng.integers(0, 4, 600), rng.normal(size=600)])
    y = rng.integers(0, 2, 600).astype(np.float64)
    statistic = BatchStatistic(notion="eo").fit(a, y)
    kernels = statistic._fitted
    assert kernels.wide_side
    seen: list[set[int]] = []
    original = kernels.attribute_side

    def side(*arguments):
        seen.append(set(blas_threads()))
        return original(*arguments)

    monkeypatch.setattr(kernels, "attribute_side", side)
    if route == "device":
        monkeypatch.setattr(backend, "on_accelerator", lambda value: True)
        monkeypatch.setattr(choose, "HOST_BATCH_ROWS", 0)
    pred = torch.tensor(rng.normal(size=200), requires_grad=True)
    statistic(pred, a[:200], y[:200]).backward()
    assert seen and all(threads == {1} for threads in seen)
    assert set(blas_threads()) == {2}
