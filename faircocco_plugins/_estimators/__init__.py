"""Estimators: the statistic's terms from the kernel inputs (exact, low-rank and explicit
features), their permutation nulls and the strata they permute within."""
