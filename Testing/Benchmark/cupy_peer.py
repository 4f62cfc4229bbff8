#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# Copyright the CudaImageFilters contributors
"""Peer timings on the GPU machine: CuPy's ndimage cubic B-spline prefilter and
resampling, and the device's copy bandwidth, timed with CUDA events (median of
--repeat runs after a warm-up), on random float32 data.

    python3 Testing/Benchmark/cupy_peer.py [--sizes 256 512] [--repeat 10] [--json FILE]

The benchmarks run it with --cupy Testing/Benchmark/cupy_peer.py (PrefilterBenchmark,
ResampleBenchmark, ConvolutionBenchmark) and read its "key: value" lines.
"""
import argparse, json
import cupy as cp, numpy as np
from cupyx.scipy import ndimage as nd

def bench(f, repeat):
    f(); cp.cuda.Device().synchronize()
    s, e, ts = cp.cuda.Event(), cp.cuda.Event(), []
    for _ in range(repeat):
        s.record(); f(); e.record(); e.synchronize()
        ts.append(cp.cuda.get_elapsed_time(s, e))
    return float(np.median(ts))

ap = argparse.ArgumentParser()
ap.add_argument("--sizes", type=int, nargs="*", default=[256, 512])
ap.add_argument("--repeat", type=int, default=10)
ap.add_argument("--json")
a = ap.parse_args()
rows = {}
name = cp.cuda.runtime.getDeviceProperties(0)["name"]
rows["device"] = name.decode() if isinstance(name, bytes) else name
buf = cp.random.rand(1 << 28, dtype=cp.float32); dst = cp.empty_like(buf)
t = bench(lambda: dst.__setitem__(slice(None), buf), a.repeat)
rows["copy_GBps"] = 2 * buf.nbytes / t / 1e6
del buf, dst
M = cp.asarray([[0.99, 0.1, 0.0, 1.3], [-0.1, 0.99, 0.02, -2.1], [0.0, -0.02, 1.0, 0.7]])
for n in a.sizes:
    x = cp.random.rand(n, n, n, dtype=cp.float32)
    rows[f"spline_filter_{n}^3_ms"] = bench(lambda: nd.spline_filter(x, order=3, output=cp.float32, mode="mirror"), a.repeat)
    c = nd.spline_filter(x, order=3, output=cp.float32, mode="mirror")
    rows[f"affine_order3_from_coeffs_{n}^3_ms"] = bench(lambda: nd.affine_transform(c, M, order=3, mode="mirror", prefilter=False, output=cp.float32), a.repeat)
    rows[f"affine_order3_with_prefilter_{n}^3_ms"] = bench(lambda: nd.affine_transform(x, M, order=3, mode="mirror", prefilter=True, output=cp.float32), a.repeat)
    rows[f"affine_order1_{n}^3_ms"] = bench(lambda: nd.affine_transform(x, M, order=1, mode="nearest", output=cp.float32), a.repeat)
    del x, c
img = cp.random.rand(4096, 4096, dtype=cp.float32)
rows["spline_filter_4096^2_ms"] = bench(lambda: nd.spline_filter(img, order=3, output=cp.float32, mode="mirror"), a.repeat)
k = cp.random.rand(15, 15, dtype=cp.float32)
rows["convolve_4096^2_15x15_ms"] = bench(lambda: nd.convolve(img, k, mode="nearest"), a.repeat)
for key, v in rows.items():
    print(f"{key}: {v:.3f}" if isinstance(v, float) else f"{key}: {v}")
if a.json:
    json.dump(rows, open(a.json, "w"), indent=1)
