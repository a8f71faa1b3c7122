"""Shared helpers of the Python package's tests (run by `meson test`:
python/meson.build sets PYTHONPATH to the build's package and PT_CLI to
the polytile command)."""

import os
import pathlib

import numpy as np
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
APPS = ROOT / "apps"

# The apps with small params (tests/common/apps_table.h's first size).
APP_PARAMS = {
    "blur": dict(R=21, C=17), "sobel": dict(R=21, C=17), "harris": dict(R=21, C=17),
    "histogram": dict(R=21, C=17), "unsharp_mask": dict(R=21, C=17),
    "bilateral_grid": dict(R=67, C=45), "camera_pipe": dict(R=64, C=96),
    "heat3d": dict(N=9, T=3), "interpolate": dict(R=129, C=67),
    "local_laplacian": dict(R=67, C=45), "pyramid_blend": dict(R=128, C=96),
    "iir_blur": dict(R=21, C=17),
}


def random_input(rng, shape, dtype):
    """What pt_workload generates: floats in [0, 1), integers 0 .. 255."""
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        return rng.random(shape, dtype=np.float64).astype(dtype)
    return rng.integers(0, 256, size=shape).astype(dtype)


def app_inputs(p, params, seed=1):
    """Random inputs of every image of pipeline p at params."""
    rng = np.random.default_rng(seed)
    return {n: random_input(rng, im.shape(**params), im.dtype) for n, im in p.inputs.items()}


@pytest.fixture
def cli():
    path = os.environ.get("PT_CLI")
    if not path:
        pytest.fail("PT_CLI is not set: run these tests with `meson test`")
    return path
