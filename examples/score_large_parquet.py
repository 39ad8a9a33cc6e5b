"""Score a Parquet file chunk by chunk, and the same file as a Dask DataFrame, and time both.

Writes a synthetic Parquet file of ``--rows`` rows (default 10 million, 163 MiB) in
row groups of one million, then computes the EO report of its predictions against three
attributes (the joint score and one per attribute) twice: streamed through ``faircocco score``
(one chunk in memory at a time) and on a Dask DataFrame read from the same file, on a local
cluster of two worker processes. Prints the time and the throughput of each, reading and
parsing included.

Run with ``python examples/score_large_parquet.py [--rows N] [--dir DIR]``.
"""

import argparse
import tempfile
import time
from pathlib import Path

import dask.dataframe as dd
import distributed
import pyarrow as pa
import pyarrow.parquet as pq

from faircocco_plugins import faircocco_report, make_synthetic
from faircocco_plugins.cli import main as faircocco


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--dir", default=None, help="where to write the file (default: a temp dir)")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(dir=args.dir) as folder:
        path = Path(folder) / "people.parquet"
        group = min(args.rows, 1_000_000)
        with pq.ParquetWriter(
            path, pa.Schema.from_pandas(make_synthetic(2), preserve_index=False)
        ) as w:
            for start in range(0, args.rows, group):
                chunk = make_synthetic(min(group, args.rows - start), random_state=start)
                w.write_table(pa.Table.from_pandas(chunk, preserve_index=False))
        size = path.stat().st_size / 2**20
        print(f"{args.rows:,} rows in {path.name} ({size:.0f} MiB, row groups of {group:,})")

        command = ["score", str(path), "--pred", "y_pred", "--sensitive", "age,sex,region"]
        command += ["--target", "y_true", "--notion", "eo", "--chunksize", str(group)]
        start = time.perf_counter()
        faircocco(command)
        streamed = time.perf_counter() - start
        print(f"streamed: {streamed:.1f} s, {args.rows / streamed / 1e6:.2f} M rows/s\n")

        with (
            distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True) as cluster,
            distributed.Client(cluster),
        ):
            start = time.perf_counter()
            people = dd.read_parquet(path, split_row_groups=True)
            report = faircocco_report(
                "y_pred", ["age", "sex", "region"], y_true="y_true", notion="eo", data=people
            )
            on_dask = time.perf_counter() - start
        print(f"Dask ({people.npartitions} partitions, 2 worker processes):")
        print(report[["score", "adjusted"]].to_string(float_format=lambda value: f"{value:.4f}"))
        print(f"Dask: {on_dask:.1f} s, {args.rows / on_dask / 1e6:.2f} M rows/s")


# worker processes re-import this file: only the parent runs the study
if __name__ == "__main__":
    main()
