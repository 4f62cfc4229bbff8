#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# Copyright the CudaImageFilters contributors
"""ANTs applies the module's transform files as the module does.

    ApplyWithANTs.py CUBIC_RESAMPLE_CLI FIXED MOVING FORWARD INVERSE WORK_DIR TOLERANCE

FORWARD maps FIXED's points into MOVING, INVERSE the other way (ITK's composite .h5 files
that ElasticRegistrationCLI writes). Each is applied once by CubicResampleCLI and once by
antspyx's ants.apply_transforms (cubic B-spline, ITK's BSplineInterpolateImageFunction) on
the other volume's grid; every value of the two results must agree within TOLERANCE times
the resampled volume's range. Prints "antspyx is not installed" and exits 0 where it is
missing (the test skips).
"""
import os
import subprocess
import sys


def main():
    if len(sys.argv) != 8:
        print(__doc__)
        return 2
    cli, fixed, moving, forward, inverse, work, tolerance = sys.argv[1:]
    try:
        import ants
        import numpy
    except ImportError:
        print("antspyx is not installed (pip install antspyx)")
        return 0
    failed = False
    for name, reference, image, transform in (("forward", fixed, moving, forward), ("inverse", moving, fixed, inverse)):
        mine_path = os.path.join(work, "ants-check-%s.nrrd" % name)
        subprocess.run(
            [cli, "--transform", transform, "--referenceVolume", reference, image, mine_path],
            check=True,
            stdout=subprocess.DEVNULL,
        )
        reference_image = ants.image_read(reference)
        image_values = ants.image_read(image)
        theirs = ants.apply_transforms(
            reference_image, image_values, transformlist=[transform], interpolator="bSpline"
        ).numpy()
        mine = ants.image_read(mine_path).numpy()
        values = image_values.numpy()
        bound = float(tolerance) * float(values.max() - values.min())
        difference = float(numpy.abs(mine - theirs).max())
        within = difference <= bound
        print(
            "ANTs %s %s %s with CubicResampleCLI: max |difference| %.3g (bound %.3g)"
            % (ants.__version__, "agrees on" if within else "DIFFERS on", os.path.basename(transform), difference, bound)
        )
        failed = failed or not within
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
