"""The registered kernels, by the name the ``kernel`` option takes.

A kernel is a record of the :class:`.kernel.Kernel` protocol; registering it here is all it takes
for every entry point to accept its name, for the options' table and docstrings to list it and
for every estimator to use it. Every other module asks :func:`kernel_named` for the kernel an
option names.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from .kernel import GAUSSIAN, Kernel
from .laplacian import LAPLACIAN

#: The kernels by name, the default first.
KERNELS: Mapping[str, Kernel] = MappingProxyType({k.name: k for k in (GAUSSIAN, LAPLACIAN)})
#: The ``kernel`` option's default.
DEFAULT_KERNEL = GAUSSIAN.name


def kernel_named(name: str) -> Kernel:
    """The kernel registered as ``name``.

    Raises
    ------
    ValueError
        Naming the ``kernel`` option and the registered names.

    Examples
    --------
    >>> from faircocco_plugins._kernels.registry import kernel_named
    >>> kernel_named("gaussian").norm
    2
    """
    if not isinstance(name, str) or name not in KERNELS:
        raise ValueError(f"kernel={name!r} is not valid; expected one of {list(KERNELS)}.")
    return KERNELS[name]
