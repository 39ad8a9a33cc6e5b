"""Every penalty: gradients, degenerate batches, dtypes, capabilities and input errors."""

from __future__ import annotations

import math

import numpy as np
import pytest

torch = pytest.importorskip("torch")
nn = torch.nn
pytest.importorskip("sklearn")
faircocco_torch = pytest.importorskip("faircocco_torch")

from faircocco_plugins import BatchStatistic, faircocco_statistic  # noqa: E402
from faircocco_plugins.plugins import NOTIONS  # noqa: E402
from faircocco_torch import (  # noqa: E402
    CovariancePenalty,
    FACLPenalty,
    FairCOCCOConstraint,
    FairCOCCOPenalty,
    FairnessPenalty,
    FARMIPenalty,
    HSICPenalty,
    LinearLossPenalty,
    SensitiveEncoder,
    fit_fair,
)

PENALTIES = [
    FairCOCCOPenalty,
    FACLPenalty,
    FARMIPenalty,
    HSICPenalty,
    CovariancePenalty,
    LinearLossPenalty,
]
CASES = [(cls, notion) for cls in PENALTIES for notion in cls.capabilities.notions]
N = 96


def _ids(case: tuple[type, str]) -> str:
    return f"{case[0].__name__}-{case[1]}"


def _batch(seed: int = 0, n: int = N) -> dict[str, torch.Tensor]:
    generator = torch.Generator().manual_seed(seed)
    sex = torch.randint(0, 2, (n,), generator=generator).float()
    age = torch.randn(n, generator=generator)
    race = torch.randint(0, 3, (n,), generator=generator)
    y = (torch.rand(n, generator=generator) < 0.3 + 0.4 * sex).float()
    logits = (1.5 * y + sex + 0.5 * age + torch.randn(n, generator=generator)).requires_grad_()
    return {"sex": sex, "age": age, "race": race, "y": y, "logits": logits}


def _attributes(kind: str, batch: dict[str, torch.Tensor]) -> tuple[torch.Tensor, object]:
    """The sensitive tensor of one kind of attribute, and the schema to use with it."""
    if kind == "binary":
        return batch["sex"][:, None], None
    if kind == "continuous":
        return batch["age"][:, None], None
    if kind == "categorical":
        encoder = SensitiveEncoder(nominal=[0]).fit(batch["race"].numpy())
        return encoder.transform(batch["race"].numpy()), encoder.schema_
    encoder = SensitiveEncoder(nominal=[0, 2])
    table = np.column_stack([batch["sex"].numpy(), batch["age"].numpy(), batch["race"].numpy()])
    return encoder.fit_transform(table), encoder.schema_


def _make(cls: type[FairnessPenalty], notion: str, schema: object = None) -> FairnessPenalty:
    options: dict[str, object] = {"notion": notion, "lam": 1.0, "schema": schema}
    if cls is FARMIPenalty:
        options["continuous"] = "binarize"
    return cls(**options)


def _supported(cls: type[FairnessPenalty], notion: str, kind: str) -> bool:
    kinds = ("binary", "continuous", "categorical") if kind == "mixed" else (kind,)
    return cls.capabilities.supports(notion=notion, attributes=kinds, outcome="binary")


def _grad(
    penalty: FairnessPenalty, pred: torch.Tensor, sensitive: torch.Tensor, y: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    leaf = pred.detach().clone().requires_grad_()
    value = penalty(leaf, sensitive, y)
    value.backward()
    return value, leaf.grad


KINDS = ["binary", "categorical", "continuous", "mixed"]
SUPPORTED = [
    pytest.param(cls, notion, kind, id=f"{cls.__name__}-{notion}-{kind}")
    for cls, notion in CASES
    for kind in KINDS
    if _supported(cls, notion, kind)
]


@pytest.mark.parametrize(("cls", "notion", "kind"), SUPPORTED)
def test_gradients_flow_and_are_finite(cls: type[FairnessPenalty], notion: str, kind: str) -> None:
    batch = _batch()
    sensitive, schema = _attributes(kind, batch)
    penalty = _make(cls, notion, schema)
    value, grad = _grad(penalty, torch.sigmoid(batch["logits"]), sensitive, batch["y"])
    assert value.dtype == torch.float32
    assert value.ndim == 0 and math.isfinite(value.item())
    assert grad is not None and bool(torch.isfinite(grad).all())
    assert float(grad.abs().sum()) > 0


@pytest.mark.parametrize("case", CASES, ids=_ids)
def test_constant_predictions_give_finite_gradients(case: tuple[type, str]) -> None:
    cls, notion = case
    batch = _batch()
    value, grad = _grad(
        _make(cls, notion), torch.full((N,), 0.3), batch["sex"][:, None], batch["y"]
    )
    assert math.isfinite(value.item())
    assert bool(torch.isfinite(grad).all())


@pytest.mark.parametrize("case", CASES, ids=_ids)
def test_single_group_in_the_batch(case: tuple[type, str]) -> None:
    cls, notion = case
    batch = _batch()
    one_group = torch.ones(N, 1)
    value, grad = _grad(_make(cls, notion), torch.sigmoid(batch["logits"]), one_group, batch["y"])
    assert bool(torch.isfinite(grad).all())
    if cls is FARMIPenalty:  # a log-likelihood, 0 only in the limit
        return
    # CAL conditions on the continuous predictions, whose regularised projection R is not
    # idempotent, so a constant attribute leaves a small positive value (of order ε N)
    assert abs(value.item()) < (1e-2 if notion == "cal" else 1e-5)


@pytest.mark.parametrize("case", CASES, ids=_ids)
def test_float64_in_float64_out(case: tuple[type, str]) -> None:
    cls, notion = case
    batch = _batch()
    pred = torch.sigmoid(batch["logits"].detach()).double()
    value = _make(cls, notion)(pred, batch["sex"][:, None].double(), batch["y"].double())
    assert value.dtype == torch.float64


@pytest.mark.parametrize("case", CASES, ids=_ids)
def test_penalty_grows_with_dependence(case: tuple[type, str]) -> None:
    """Predictions driven by the attribute are penalised more than ones that ignore it."""
    cls, notion = case
    generator = torch.Generator().manual_seed(3)
    n = 200
    sex = torch.randint(0, 2, (n,), generator=generator).float()
    y = torch.randint(0, 2, (n,), generator=generator).float()
    noise = torch.randn(n, generator=generator)
    fair = torch.sigmoid(y + noise)
    unfair = torch.sigmoid(y + 2.0 * sex + noise)
    penalty = _make(cls, notion)
    assert (penalty(unfair, sex, y)).item() > (penalty(fair, sex, y)).item()


def test_faircocco_penalty_is_lam_times_the_core_statistic() -> None:
    batch = _batch()
    p = torch.sigmoid(batch["logits"])
    sensitive = torch.stack([batch["sex"], batch["age"]], dim=1)
    plain = FairCOCCOPenalty(notion="eo", lam=2.5, chance_adjusted=False)
    # on the batch that fits the attribute and outcome kernels, the batch path is the
    # core's low-rank statistic
    expected = faircocco_statistic(
        p, sensitive, y_true=batch["y"], notion="eo", method="lowrank", eps=0.3,
        conditioning_eps=1e-4,
    )  # fmt: skip
    assert plain(p, sensitive, batch["y"]).item() == pytest.approx(2.5 * expected.item(), rel=1e-6)
    # by default, minus its permutation null (checked against the core in tests/core)
    adjusted = FairCOCCOPenalty(notion="eo", lam=2.5)(p, sensitive, batch["y"]).item()
    assert 0 < adjusted < 2.5 * expected.item()


def test_chance_adjustment_is_on_for_dp_and_eo_and_refused_where_unsupported() -> None:
    assert FairCOCCOPenalty(notion="dp").chance_adjusted
    assert FairCOCCOPenalty(notion="eo").chance_adjusted
    assert not FairCOCCOPenalty(notion="cal").chance_adjusted
    assert not FairCOCCOPenalty(notion="eo", method="exact").chance_adjusted
    with pytest.raises(ValueError, match=r"chance_adjusted=True needs notion 'dp' or 'eo'"):
        FairCOCCOPenalty(notion="cal", chance_adjusted=True)
    with pytest.raises(ValueError, match="method='exact'"):
        FairCOCCOPenalty(notion="dp", method="exact", chance_adjusted=True)


def test_faircocco_penalty_keeps_the_kernels_fitted_on_training_data() -> None:
    train, batch = _batch(seed=1, n=1000), _batch(seed=2)
    sensitive = torch.stack([train["sex"], train["age"]], dim=1)
    # the paper's ridge, at which kernels fitted on other rows visibly change the value
    paper = {"eps": 1e-4, "conditioning_eps": None, "chance_adjusted": False}
    penalty = FairCOCCOPenalty(notion="eo", **paper).fit(sensitive, train["y"])
    p = torch.sigmoid(batch["logits"])
    batch_sensitive = torch.stack([batch["sex"], batch["age"]], dim=1)
    value = penalty.statistic(p, batch_sensitive, batch["y"])
    fitted = BatchStatistic(notion="eo", **paper).fit(sensitive.double(), train["y"].double())
    # the penalty unit-scales the predictions first, which the median heuristic ignores
    assert value.item() == pytest.approx(fitted(p, batch_sensitive, batch["y"]).item(), rel=1e-5)
    unfitted = FairCOCCOPenalty(notion="eo", **paper).statistic(p, batch_sensitive, batch["y"])
    assert abs(unfitted.item() - value.item()) > 1e-4 * value.item()


@pytest.mark.parametrize("notion", ["dp", "eo"])
def test_an_unfitted_penalty_whose_first_batch_has_a_constant_age_measures_later_batches_afresh(
    notion: str,
) -> None:
    batch = _batch(seed=4)
    age = batch["age"][:, None]
    p = torch.sigmoid(batch["logits"]).detach()
    penalty = FairCOCCOPenalty(notion=notion)
    penalty(torch.rand(N), torch.full((N, 1), 40.0), batch["y"])
    fresh = FairCOCCOPenalty(notion=notion).statistic(p, age, batch["y"])
    assert penalty.statistic(p, age, batch["y"]).item() == pytest.approx(fresh.item(), rel=1e-6)


def test_an_unfitted_penalty_whose_first_batch_has_one_class_takes_both_classes_later() -> None:
    batch = _batch(seed=5)
    labels = batch["y"].long()
    p = torch.sigmoid(batch["logits"]).detach()
    penalty = FairCOCCOPenalty(notion="eo")
    penalty(torch.rand(N), batch["age"][:, None], torch.zeros(N, dtype=torch.long))
    value = penalty.statistic(p, batch["age"][:, None], labels)
    fresh = FairCOCCOPenalty(notion="eo").statistic(p, batch["age"][:, None], labels)
    assert value.item() == pytest.approx(fresh.item(), rel=1e-6)


@pytest.mark.parametrize(
    "options",
    [{"notion": "dp"}, {"notion": "eo"}, {"notion": "cal"}, {"notion": "eo", "method": "exact"}],
    ids=lambda o: "-".join(o.values()),
)
def test_the_gradient_stays_bounded_as_the_predictions_collapse(options: dict[str, str]) -> None:
    batch = _batch(seed=6, n=128)
    sensitive = torch.stack([batch["sex"], batch["age"]], dim=1).double()
    y = batch["y"].double()
    noise = (batch["logits"].detach().double() - 1.0) / 2.0
    values, largest = [], []
    for spread in np.logspace(-12, 0, 13):
        pred = (0.5 + spread * noise).requires_grad_()
        value = FairCOCCOPenalty(lam=1.0, **options)(pred, sensitive, y)
        value.backward()
        values.append(value.item())
        largest.append(pred.grad.abs().max().item())
    # undamped, the largest entry grows as 1/spread (4e-3 at spread 1, 4e9 at 1e-12); damped
    # below the floor it peaks there, at 2.9
    assert max(largest) < 4.0
    # the statistic is invariant to the scale of the predictions, the floor included
    assert values == pytest.approx([values[-1]] * len(values), rel=1e-3)
    # above the floor (1e-3 of the predictions' scale) the gradient is the undamped one
    assert largest[-3] == pytest.approx(100 * largest[-1], rel=1e-3)


def _integer_ages(low: int, high: int, shape: str, generator: torch.Generator) -> torch.Tensor:
    ages = torch.randint(low, high + 1, (128,), generator=generator).double()
    return ages if shape == "1-d" else ages[:, None]


@pytest.mark.parametrize("shape", ["1-d", "2-d"])
def test_an_unfitted_penalty_warns_when_a_batch_leaves_the_range_of_its_first_one(
    shape: str,
) -> None:
    """Integer ages 40-42 are three levels with a bandwidth of 1: a batch of ages 20-80 is
    measured as if most of its ages were unrelated, so the penalty says so and how to fit it."""
    generator = torch.Generator().manual_seed(0)
    penalty = FairCOCCOPenalty(notion="dp")
    penalty(torch.rand(128, dtype=torch.float64), _integer_ages(40, 42, shape, generator))
    wide = _integer_ages(20, 80, shape, generator)
    message = r"values of 'sensitive_features(\[0\])?' lie outside the range .* penalty\.fit"
    with pytest.warns(UserWarning, match=message):
        penalty(0.02 * wide.reshape(-1) + torch.randn(128, dtype=torch.float64), wide)


def test_a_penalty_fitted_on_the_training_ages_measures_narrow_and_wide_batches_silently() -> None:
    generator = torch.Generator().manual_seed(1)
    penalty = FairCOCCOPenalty(notion="dp").fit(_integer_ages(20, 80, "2-d", generator))
    for low, high in ((40, 42), (20, 80)):
        ages = _integer_ages(low, high, "2-d", generator)
        penalty(torch.rand(128, dtype=torch.float64), ages)  # warnings are errors here


def test_faircocco_penalty_rejects_a_class_it_was_not_fitted_with() -> None:
    penalty = FairCOCCOPenalty(notion="eo").fit(torch.rand(50, 1), torch.arange(50) % 2)
    with pytest.raises(ValueError, match="class 2"):
        penalty(torch.rand(20), torch.rand(20, 1), torch.arange(20) % 3)


def test_fit_fair_fits_the_penalty_on_the_training_set() -> None:
    train = _batch(seed=3, n=300)
    x = torch.stack([train["sex"], train["age"]], dim=1)
    penalty = FairCOCCOPenalty(notion="eo")
    with torch.random.fork_rng():
        torch.manual_seed(0)  # the model's start, whatever tests ran before
        model = nn.Linear(2, 1)
    fit_fair(
        model,
        (x, train["y"][:, None], train["sex"][:, None]),
        loss=nn.BCEWithLogitsLoss(),
        penalty=penalty,
        epochs=1,
        batch_size=64,
        penalty_input=torch.sigmoid,
        random_state=0,
        progress=False,
    )
    reference = FairCOCCOPenalty(notion="eo").fit(train["sex"][:, None], train["y"][:, None])
    p = torch.rand(64)
    args = (train["sex"][:64, None], train["y"][:64, None])
    assert penalty.statistic(p, *args).item() == reference.statistic(p, *args).item()


def test_faircocco_penalty_on_logits_and_on_probabilities() -> None:
    batch = _batch()
    penalty = FairCOCCOPenalty(notion="eo")
    on_logits = penalty(batch["logits"], batch["sex"], batch["y"])
    on_probabilities = penalty(torch.sigmoid(batch["logits"]), batch["sex"], batch["y"])
    (on_logits + on_probabilities).backward()
    assert on_logits.item() > 0 and on_probabilities.item() > 0
    # the sigmoid's squashing changes the kernel distances: the two are different penalties
    assert abs(on_logits.item() - on_probabilities.item()) > 1e-3 * on_logits.item()
    assert bool(torch.isfinite(batch["logits"].grad).all())
    assert float(batch["logits"].grad.abs().sum()) > 0


def test_faircocco_penalty_accepts_class_labels_and_class_probabilities() -> None:
    generator = torch.Generator().manual_seed(4)
    labels = torch.randint(0, 3, (90,), generator=generator)
    logits = torch.randn(90, 3, generator=generator).requires_grad_()
    sex = torch.randint(0, 2, (90, 1), generator=generator).float()
    probabilities = torch.softmax(logits, dim=1)
    value = FairCOCCOPenalty(notion="eo")(probabilities, sex, labels)
    value.backward()
    assert bool(torch.isfinite(logits.grad).all())
    # the labels are nominal: renaming the classes changes nothing, reassigning them does
    renamed = FairCOCCOPenalty(notion="eo")(probabilities.detach(), sex, (labels + 1) % 3)
    assert renamed.item() == pytest.approx(value.item(), rel=1e-9)
    shuffled = labels[torch.randperm(90, generator=generator)]
    other = FairCOCCOPenalty(notion="eo")(probabilities.detach(), sex, shuffled)
    assert abs(other.item() - value.item()) > 1e-3 * abs(value.item())


def test_every_penalty_shares_the_call_signature() -> None:
    batch = _batch()
    p = torch.sigmoid(batch["logits"])
    for cls in PENALTIES:
        penalty = cls(notion="dp", lam=1.0)
        term, statistic = penalty.evaluate(p, batch["sex"])
        assert (penalty(p, batch["sex"])).item() == pytest.approx(term.item())
        assert term.item() == pytest.approx(statistic.item())
        assert float(penalty.last_statistic_) == pytest.approx(statistic.item())


def test_capabilities_are_frozen_and_declared() -> None:
    for cls in [*PENALTIES, FairCOCCOConstraint]:
        capabilities = cls.capabilities
        assert set(capabilities.notions) <= set(NOTIONS)
        assert capabilities.needs_gradients
        with pytest.raises(AttributeError):
            capabilities.notions = ("dp",)  # type: ignore[misc]


@pytest.mark.parametrize(
    ("cls", "notion"),
    [(FACLPenalty, "cal"), (HSICPenalty, "cal"), (CovariancePenalty, "cal")],
)
def test_unsupported_notion_is_a_clear_error(cls: type, notion: str) -> None:
    with pytest.raises(ValueError, match=rf"{cls.__name__} does not support notion='{notion}'"):
        cls(notion=notion)


def test_unsupported_attribute_kind_is_a_clear_error() -> None:
    batch = _batch()
    with pytest.raises(ValueError, match="LinearLossPenalty does not support continuous"):
        LinearLossPenalty(notion="dp")(batch["logits"], batch["age"])
    with pytest.raises(ValueError, match="continuous='error'"):
        FARMIPenalty(notion="dp", continuous="error")(batch["logits"], batch["age"])


def test_unsupported_outcome_kind_is_a_clear_error() -> None:
    batch = _batch()
    with pytest.raises(ValueError, match="CovariancePenalty does not support continuous outcomes"):
        CovariancePenalty(notion="eo")(batch["logits"], batch["sex"], batch["age"])
    with pytest.raises(ValueError, match="HSICPenalty does not support continuous outcomes"):
        HSICPenalty(notion="eo")(batch["logits"], batch["sex"], batch["age"])


def test_multi_column_predictions_are_refused_by_scalar_penalties() -> None:
    batch = _batch()
    probabilities = torch.rand(N, 3)
    with pytest.raises(ValueError, match="FACLPenalty does not support predictions with 3"):
        FACLPenalty(notion="dp")(probabilities, batch["sex"])


def test_input_errors_name_the_argument() -> None:
    batch = _batch()
    penalty = FairCOCCOPenalty(notion="eo")
    with pytest.raises(ValueError, match="y_true is required"):
        penalty(batch["logits"], batch["sex"])
    with pytest.raises(ValueError, match="sensitive has 95"):
        penalty(batch["logits"], batch["sex"][:95], batch["y"])
    with pytest.raises(TypeError, match="y_pred must be a torch tensor"):
        penalty(batch["logits"].detach().numpy(), batch["sex"], batch["y"])
    with pytest.raises(TypeError, match="SensitiveEncoder"):
        penalty(batch["logits"], np.array(["f", "m"] * (N // 2)), batch["y"])
    with pytest.raises(ValueError, match="NaN"):
        penalty(batch["logits"], torch.full((N,), math.nan), batch["y"])
    with pytest.raises(ValueError, match="notion='xy' is not valid"):
        FACLPenalty(notion="xy")
    with pytest.raises(ValueError, match="lam=-1"):
        HSICPenalty(lam=-1)


def test_schema_width_must_match() -> None:
    batch = _batch()
    _, schema = _attributes("categorical", batch)
    with pytest.raises(ValueError, match="schema describes 3"):
        FACLPenalty(notion="dp", schema=schema)(batch["logits"], batch["sex"])


def test_numpy_sensitive_is_moved_to_the_prediction_tensor() -> None:
    batch = _batch()
    value = HSICPenalty(notion="dp")(batch["logits"], batch["sex"].numpy())
    assert value.device == batch["logits"].device


def test_linear_loss_matches_donini_gap_for_two_groups() -> None:
    a = torch.tensor([0.0, 0.0, 0.0, 1.0, 1.0, 1.0])
    y = torch.tensor([1.0, 1.0, 0.0, 1.0, 1.0, 0.0])
    f = torch.tensor([0.2, 0.4, 0.9, 0.7, 0.9, 0.1])
    value = LinearLossPenalty(notion="eo")(f, a, y)
    positives = 0.5 * abs(0.8 - 0.3)  # ½ |mean f(a=1, y=1) − mean f(a=0, y=1)|
    negatives = 0.5 * abs(0.1 - 0.9)
    assert value.item() == pytest.approx(positives + negatives)


def test_covariance_matches_its_formula() -> None:
    z = torch.tensor([0.0, 1.0, 1.0, 0.0, 1.0])
    d = torch.tensor([-1.0, 2.0, 0.5, -0.5, 1.0])
    expected = abs(float(((z - z.mean()) * d).mean()))
    assert float(CovariancePenalty(notion="dp")(d, z)) == pytest.approx(expected)
    y = torch.tensor([1.0, 0.0, 1.0, 1.0, 1.0])
    g = torch.clamp((2 * y - 1) * d, max=0.0)
    expected_eo = abs(float(((z - z.mean()) * g).mean()))
    assert float(CovariancePenalty(notion="eo")(d, z, y)) == pytest.approx(expected_eo)


def test_hsic_matches_a_literal_transcription() -> None:
    generator = torch.Generator().manual_seed(5)
    x = torch.randn(30, generator=generator)
    a = torch.randn(30, generator=generator)
    n = 30

    def gram(v: torch.Tensor) -> torch.Tensor:
        d = (v[:, None] - v[None, :]).abs()
        sigma = float(np.median(d[~torch.eye(n, dtype=torch.bool)].numpy()))
        return torch.exp(-(d**2) / (2 * sigma**2))

    h = torch.eye(n) - torch.ones(n, n) / n
    expected = torch.trace(gram(x) @ h @ gram(a) @ h) / (n - 1) ** 2
    value = HSICPenalty(notion="dp")(x, a)
    assert value.item() == pytest.approx(expected.item(), rel=1e-4)


DEVICES = ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("case", CASES, ids=_ids)
def test_the_result_lives_on_the_inputs_device(case: tuple[type, str], device: str) -> None:
    cls, notion = case
    batch = {k: v.detach().to(device) for k, v in _batch().items()}
    pred = torch.sigmoid(batch["logits"]).requires_grad_()
    value = _make(cls, notion)(pred, batch["sex"][:, None], batch["y"])
    value.backward()
    assert value.device.type == device
    assert pred.grad is not None and pred.grad.device.type == device


def test_the_penalty_refuses_meta_tensors_by_name():
    penalty = FairCOCCOPenalty(notion="dp")
    sensitive = torch.randint(0, 2, (64, 1)).float()
    with pytest.raises(TypeError, match=r"^y_pred is a tensor on the 'meta' device"):
        penalty(torch.empty(64, device="meta"), sensitive)
