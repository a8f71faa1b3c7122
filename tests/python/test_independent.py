"""Apps against independent implementations, where an app computes what
a library function does: scikit-image's Sobel filters and histogram,
SciPy's correlation (the 5-tap binomial blur), scikit-image's Gaussian
blur (an approximation, with the tolerance said below)."""

import numpy as np
import pytest

import polytile
from conftest import APPS

skimage = pytest.importorskip("skimage", reason="python3-skimage (scripts/install-deps.sh)")
from scipy import ndimage  # noqa: E402  (python3-scipy comes with python3-skimage)
from skimage import data, exposure, filters  # noqa: E402


def gray_photo(rows, cols):
    """A crop of scikit-image's camera photograph (u8)."""
    return np.ascontiguousarray(data.camera()[100:100 + rows, 150:150 + cols])


def test_sobel_matches_skimage():
    img = gray_photo(130, 97)
    mag = polytile.load(APPS / "sobel.pipe")(I=img)          # R x C: the interior
    assert mag.shape == (128, 95)
    # skimage scales each kernel by 1/4, reads u8 as [0, 1] and returns
    # sqrt((h^2 + v^2) / 2); its borders (reflected) are not compared.
    # polytile's gradients are exact integers, its sqrt f32: rtol 1e-6.
    ref = filters.sobel(img)[1:-1, 1:-1] * 4 * 255 * np.sqrt(2)
    assert np.allclose(mag, ref, rtol=1e-6, atol=1e-3)
    h = filters.sobel_h(img)[1:-1, 1:-1] * 4 * 255
    v = filters.sobel_v(img)[1:-1, 1:-1] * 4 * 255
    assert np.allclose(mag, np.hypot(h, v), rtol=1e-6, atol=1e-3)
    assert mag.max() > 100                                    # a photo has edges


def test_histogram_matches_skimage():
    img = gray_photo(200, 173)
    hist = polytile.load(APPS / "histogram.pipe")(I=img)
    counts, centers = exposure.histogram(img, source_range="dtype")
    assert np.array_equal(centers, np.arange(256))
    assert hist.dtype == np.int32 and np.array_equal(hist, counts)   # exact: counts


def blur_only(img3):
    """unsharp_mask's blur: weight -1 makes sharpen = 0 * img + blur,
    threshold -1 never keeps the original, so the output is the blur."""
    p = polytile.load(APPS / "unsharp_mask.pipe")
    return p(img=img3, weight=-1.0, threshold=-1.0)


def test_binomial_blur_matches_scipy():
    img3 = np.random.default_rng(5).random((3, 44, 37), dtype=np.float32)
    out = blur_only(img3)
    k = np.array([1, 4, 6, 4, 1]) / 16
    ref = ndimage.correlate1d(ndimage.correlate1d(img3.astype(np.float64), k, axis=1), k, axis=2)
    # f32 sums in another order than SciPy's f64: a few ulps
    assert np.allclose(out, ref[:, 2:-2, 2:-2], rtol=0, atol=2e-6)


def test_blur_approximates_skimage_gaussian():
    gray = gray_photo(84, 91).astype(np.float32) / 255
    out = blur_only(np.stack([gray] * 3))
    ref = filters.gaussian(gray.astype(np.float64), sigma=1, mode="reflect", truncate=4)[2:-2, 2:-2]
    # [1 4 6 4 1]/16 is the binomial kernel of variance 1, not a sampled
    # Gaussian of sigma 1 (its taps differ by up to 0.024): on a photo
    # in [0, 1] the two blurs differ by under 0.02 anywhere and 0.002 on
    # average, while either differs from the unblurred photo far more.
    diff = np.abs(out - ref)
    assert diff.max() < 0.02 and diff.mean() < 0.002, (diff.max(), diff.mean())
    assert np.abs(gray[2:-2, 2:-2] - ref).mean() > 5 * diff.mean()
