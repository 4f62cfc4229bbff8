#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# Copyright the CudaImageFilters contributors
"""The peers of the module's SyN on one brain pair, and one scorer for all of them.

  syn_peers.py fireants FIXED MOVING OUTDIR [--repeats N]
      FireANTs (PyTorch, on the GPU): centres of mass, affine, SyN with the settings of
      FireANTs' own brain scripts (scripts/pairwise/test_lpba40.py: affine 8,4,2,1 x
      100,50,25,20; SyN 4,2,1 x 100,75,50, CC window 5, Adam 0.5); its fused CUDA
      operations when fireants_fused_ops imports, else its PyTorch losses.
  syn_peers.py antspy FIXED MOVING OUTDIR
      ANTsPy: ants.registration(type_of_transform='SyN') on every host core.
  syn_peers.py score FIXED MOVING FULL_WARP|identity
      One line of figures for a registration given as its whole fixed-to-moving map
      (a displacement field on the fixed grid, ITK's convention: LPS millimetres):
      global NCC of the fixed image and the moving image warped by the map (trilinear,
      0 outside), and the range of the map's Jacobian determinant and its folded voxels.

Each runner writes OUTDIR/FullWarp.nii.gz and prints 'seconds S' (registration alone,
the images already loaded; the best of the repeats after a first warm-up run when N > 1).
"""
import os
import sys
import time

import numpy as np


def lps_affine(image):
    """nibabel's voxel-to-RAS affine as ITK's voxel-to-LPS one."""
    return np.diag([-1.0, -1.0, 1.0, 1.0]) @ image.affine


def score(fixed_path, moving_path, warp_path):
    import nibabel as nib
    from scipy import ndimage

    fixed_image, moving_image = nib.load(fixed_path), nib.load(moving_path)
    fixed = np.asarray(fixed_image.dataobj, dtype=np.float64).squeeze()
    moving = np.asarray(moving_image.dataobj, dtype=np.float32).squeeze()
    if warp_path == "identity":
        warp = np.zeros(fixed.shape + (3,))
    else:
        warp = np.asarray(nib.load(warp_path).dataobj, dtype=np.float64).reshape(fixed.shape + (3,))
    to_fixed_lps, to_moving_lps = lps_affine(fixed_image), lps_affine(moving_image)
    index = np.stack(np.meshgrid(*(np.arange(n) for n in fixed.shape), indexing="ij"), axis=-1).astype(np.float64)
    points = index @ to_fixed_lps[:3, :3].T + to_fixed_lps[:3, 3] + warp
    moving_index = (points - to_moving_lps[:3, 3]) @ np.linalg.inv(to_moving_lps[:3, :3]).T
    warped = ndimage.map_coordinates(moving, moving_index.reshape(-1, 3).T, order=1, cval=0.0).reshape(fixed.shape)
    x, y = fixed.ravel(), warped.astype(np.float64).ravel()
    ncc = np.dot(x - x.mean(), y - y.mean()) / np.sqrt(np.dot(x - x.mean(), x - x.mean()) * np.dot(y - y.mean(), y - y.mean()))
    # d(map)/d(point) = I + d(warp)/d(index) * d(index)/d(point); central differences.
    to_index = np.linalg.inv(to_fixed_lps[:3, :3])
    derivative = np.stack(np.gradient(warp, axis=(0, 1, 2)), axis=-1)  # [..., component, index axis]
    jacobian = np.eye(3) + derivative @ to_index
    det = np.linalg.det(jacobian.reshape(-1, 3, 3))
    folded = int(np.count_nonzero(det <= 0))
    return "ncc %.4f jacobian %.3f %.3f folded %d of %d" % (ncc, det.min(), det.max(), folded, det.size)


def fireants(fixed_path, moving_path, outdir, repeats):
    import torch
    from fireants.io.image import BatchedImages, Image
    from fireants.registration.affine import AffineRegistration
    from fireants.registration.moments import MomentsRegistration
    from fireants.registration.syn import SyNRegistration

    try:
        import fireants_fused_ops  # noqa: F401

        loss = "fusedcc"
    except ImportError:
        loss = "cc"
    fixed = BatchedImages([Image.load_file(fixed_path, device="cuda")])
    moving = BatchedImages([Image.load_file(moving_path, device="cuda")])

    def register():
        moments = MomentsRegistration(1.0, fixed, moving, moments=1)
        moments.optimize()
        affine = AffineRegistration([8, 4, 2, 1], [100, 50, 25, 20], fixed, moving, loss_type=loss, optimizer="Adam",
                                    optimizer_lr=3e-3, cc_kernel_size=5, init_rigid=moments.get_affine_init())
        affine.optimize()
        syn = SyNRegistration(scales=[4, 2, 1], iterations=[100, 75, 50], fixed_images=fixed, moving_images=moving,
                              loss_type=loss, cc_kernel_size=5, deformation_type="compositive", optimizer="adam",
                              optimizer_lr=0.5, smooth_grad_sigma=1, init_affine=affine.get_affine_matrix().detach())
        syn.optimize()
        return syn

    times = []
    for _ in range(max(1, repeats)):
        torch.cuda.synchronize()
        start = time.perf_counter()
        syn = register()
        torch.cuda.synchronize()
        times.append(time.perf_counter() - start)
    syn.save_as_ants_transforms(os.path.join(outdir, "FullWarp.nii.gz"))
    best = min(times[1:]) if len(times) > 1 else times[0]
    print("fireants loss %s runs %s" % (loss, " ".join("%.3f" % t for t in times)))
    print("seconds %.3f" % best)


def antspy(fixed_path, moving_path, outdir):
    import ants

    fixed, moving = ants.image_read(fixed_path), ants.image_read(moving_path)
    start = time.perf_counter()
    result = ants.registration(fixed, moving, type_of_transform="SyN", outprefix=os.path.join(outdir, "ants"))
    seconds = time.perf_counter() - start
    composed = ants.apply_transforms(fixed, moving, result["fwdtransforms"], compose=os.path.join(outdir, "composed"))
    os.replace(composed, os.path.join(outdir, "FullWarp.nii.gz"))
    print("antspy threads %s" % os.environ.get("ITK_GLOBAL_DEFAULT_NUMBER_OF_THREADS", "default"))
    print("seconds %.3f" % seconds)


def main(argv):
    if len(argv) >= 4 and argv[0] == "score":
        print(score(argv[1], argv[2], argv[3]))
    elif len(argv) >= 4 and argv[0] == "fireants":
        repeats = int(argv[argv.index("--repeats") + 1]) if "--repeats" in argv else 1
        fireants(argv[1], argv[2], argv[3], repeats)
    elif len(argv) >= 4 and argv[0] == "antspy":
        antspy(argv[1], argv[2], argv[3])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
