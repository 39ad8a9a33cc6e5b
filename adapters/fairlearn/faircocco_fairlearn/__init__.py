"""FairCOCCO in fairlearn: the FairCOCCO score as a metric, in ``MetricFrame`` or on its own.

fairlearn's metrics compare groups, so a continuous attribute becomes one group per value and
several attributes become their intersections. :func:`faircocco_metric` measures the dependence
of the predictions on all attributes jointly, whatever their types, with fairlearn's
``metric(y_true, y_pred, *, sensitive_features)`` signature; :func:`faircocco_sample_params`
passes a mixed-type table of attributes through ``MetricFrame``'s ``sample_params``. The paper's
DEO and DI columns are :func:`difference_of_equal_opportunity` and
:func:`disparate_impact_ratio`. :class:`FairCOCCOMoment` is a linearised FairCOCCO constraint for
fairlearn's reductions, for any scikit-learn estimator; :class:`FairCOCCOGridSearch` is fairlearn's
``GridSearch`` asked for a fairness target rather than a weight.
"""

from ._gaps import difference_of_equal_opportunity, disparate_impact_ratio
from ._grid_search import FairCOCCOGridSearch
from ._metrics import faircocco_metric, faircocco_metric_report, faircocco_sample_params
from ._moment import FairCOCCOMoment

__all__ = [
    "FairCOCCOGridSearch",
    "FairCOCCOMoment",
    "difference_of_equal_opportunity",
    "disparate_impact_ratio",
    "faircocco_metric",
    "faircocco_metric_report",
    "faircocco_sample_params",
]
__version__ = "0.1.0"
