"""Kernels: the kernel inputs of the variables, their scaling and bandwidths, and the levels of
their discrete columns."""
