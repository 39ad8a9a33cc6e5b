"""Linear algebra: the array backend shared by numpy and torch, the torch operations, the BLAS
thread limit and the package configuration."""
