#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# Copyright the CudaImageFilters contributors
"""Peer timing for TableLookupBenchmark: CuPy's map_coordinates (order 3, mode
'mirror' = ITK's whole-sample mirror, prefilter=False) on the coefficients and the
points the benchmark wrote (the same numbers it evaluates), timed with CUDA events
(median of --repeat runs after a warm-up). Writes the first --first values back so
that the benchmark can compare them with its own.

    python3 cupy_table_peer.py --coefficients C.f32 --shape n0 n1 ... --points P.f64
                               --count N --values OUT.f64 [--first K] [--repeat R]

--shape lists the sizes in ITK's order (axis 0 fastest in memory); --points holds N
points of len(shape) float64 continuous indices each, in the same order. Prints
"map_coordinates_ms: <ms>" (or "map_coordinates_error: <text>").
"""
import argparse
import sys

import numpy as np

ap = argparse.ArgumentParser()
ap.add_argument("--coefficients", required=True)
ap.add_argument("--shape", type=int, nargs="+", required=True)
ap.add_argument("--points", required=True)
ap.add_argument("--count", type=int, required=True)
ap.add_argument("--values", required=True)
ap.add_argument("--first", type=int, default=100000)
ap.add_argument("--repeat", type=int, default=10)
a = ap.parse_args()
try:
    import cupy as cp
    from cupyx.scipy import ndimage as nd

    def bench(f, repeat):
        f()
        cp.cuda.Device().synchronize()
        s, e, ts = cp.cuda.Event(), cp.cuda.Event(), []
        for _ in range(repeat):
            s.record()
            f()
            e.record()
            e.synchronize()
            ts.append(cp.cuda.get_elapsed_time(s, e))
        return float(np.median(ts))

    d = len(a.shape)
    # numpy order: ITK's last axis first, so that ITK's axis 0 is contiguous
    c = cp.asarray(np.fromfile(a.coefficients, dtype=np.float32).reshape(tuple(reversed(a.shape))))
    p = np.fromfile(a.points, dtype=np.float64).reshape(a.count, d)
    coordinates = cp.asarray(np.ascontiguousarray(p[:, ::-1].T))  # (d, N), numpy axis order
    del p
    out = cp.empty(a.count, dtype=cp.float64)  # double values, as the benchmark's
    ms = bench(lambda: nd.map_coordinates(c, coordinates, output=out, order=3, mode="mirror", prefilter=False),
               a.repeat)
    out[: a.first].get().tofile(a.values)
    print(f"map_coordinates_ms: {ms:.3f}")
except Exception as error:  # no CuPy, no device, or a kernel CuPy cannot build
    print(f"map_coordinates_error: {type(error).__name__}: {error}".replace("\n", " "))
    sys.exit(0)
