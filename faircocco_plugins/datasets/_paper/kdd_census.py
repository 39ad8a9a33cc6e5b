"""Census-Income (KDD, UCI): income above 50K, sensitive sex, race (White or not) and age."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import numpy as np
import pandas as pd

from .._source import DatasetSource, LoadedTable
from ._common import category, files, recode

DATA, TEST = "census-income.data.gz", "census-income.test.gz"
#: The 42 columns of the data files (census-income.names lists two more that are absent).
COLUMNS = (
    "age",
    "class_of_worker",
    "detailed_industry_recode",
    "detailed_occupation_recode",
    "education",
    "wage_per_hour",
    "enroll_in_edu_inst_last_wk",
    "marital_stat",
    "major_industry_code",
    "major_occupation_code",
    "race",
    "hispanic_origin",
    "sex",
    "member_of_a_labor_union",
    "reason_for_unemployment",
    "full_or_part_time_employment_stat",
    "capital_gains",
    "capital_losses",
    "dividends_from_stocks",
    "tax_filer_stat",
    "region_of_previous_residence",
    "state_of_previous_residence",
    "detailed_household_and_family_stat",
    "detailed_household_summary_in_household",
    "instance_weight",
    "migration_code_change_in_msa",
    "migration_code_change_in_reg",
    "migration_code_move_within_reg",
    "live_in_this_house_1_year_ago",
    "migration_prev_res_in_sunbelt",
    "num_persons_worked_for_employer",
    "family_members_under_18",
    "country_of_birth_father",
    "country_of_birth_mother",
    "country_of_birth_self",
    "citizenship",
    "own_business_or_self_employed",
    "fill_inc_questionnaire_for_veterans_admin",
    "veterans_benefits",
    "weeks_worked_in_year",
    "year",
    "income",
)
#: Nominal attributes written as integer codes (census-income.names marks them nominal).
CODED = (
    "detailed_industry_recode",
    "detailed_occupation_recode",
    "own_business_or_self_employed",
    "veterans_benefits",
    "year",
)
#: The sampling weight: census-income.names says it must not be used by classifiers.
DROPPED = ("instance_weight",)


def _read(path: Path) -> pd.DataFrame:
    # Only the file's own "?" marks a missing value; "NA" is a level of hispanic_origin.
    return pd.read_csv(
        path, header=None, names=list(COLUMNS), skipinitialspace=True, keep_default_na=False
    )


def load(paths: Mapping[str, Path]) -> LoadedTable:
    """Both files, every row; "?" (unknown) stays a level of the nominal columns."""
    train, test = _read(paths[DATA]), _read(paths[TEST])
    frame = pd.concat([train, test], ignore_index=True)
    is_test = np.r_[np.zeros(len(train), bool), np.ones(len(test), bool)]
    y = recode(frame["income"], {"- 50000.": 0, "50000+.": 1}, "kdd_census income")
    white = frame["race"] == "White"
    sensitive = pd.DataFrame(
        {
            "sex": category(frame["sex"], {"Female": "Female", "Male": "Male"}, "kdd_census sex"),
            "race": pd.Categorical(
                np.where(white, "White", "Non-white"), categories=["White", "Non-white"]
            ),
            "age": frame["age"].astype(float),
        }
    )
    X = frame.drop(columns=[*DROPPED, "sex", "race", "age", "income"])
    X[list(CODED)] = X[list(CODED)].astype(str)
    return LoadedTable(X, y.astype(np.int64).rename("income>50K"), sensitive, is_test)


SOURCE = DatasetSource(
    name="kdd_census",
    task="classification",
    attributes={"sex": "binary", "race": "binary", "age": "continuous"},
    load=load,
    description=(
        "UCI Census-Income (KDD): income >50K from 37 attributes (instance weight dropped, "
        "nominal ones one-hot, '?' a level), sensitive sex, race (White / Non-white) and age; "
        "official test file"
    ),
    files=files("kdd_census", DATA, TEST),
    rows=299285,
    paper_rows=299285,
    origin="paper",
    label="income above $50,000 (label 50000+.)",
    test_label="official test file census-income.test",
)
