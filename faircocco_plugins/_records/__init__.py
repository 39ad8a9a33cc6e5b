"""Records: the fairness notions, tasks and kinds the package names, and the checks of
parameters against their allowed values."""
