"""Routes: where and how one call is computed (host or device, in memory, streamed or on Dask),
chosen in :mod:`.choose` and run by :mod:`.dispatch`, and the problem that gathers a call's
variables and options for its estimator."""
