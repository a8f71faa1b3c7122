"""Inputs: every element type of the language, layouts taken without a
copy or copied, conversions without loss, and refusals with messages."""

import numpy as np
import pytest

import polytile
from conftest import APPS

TYPES = list(zip(polytile.TYPE_NAMES, polytile.DTYPES))


def identity(t):
    return polytile.Pipeline(f"pipeline id_{t}\nparam R : int\nparam C : int\nimage I : {t} [R, C]\n"
                             f"func f(x : 0 .. R-1, y : 0 .. C-1) : {t} = I(x, y)\noutput f\n")


@pytest.mark.parametrize("t,dtype", TYPES)
def test_every_type_round_trips(t, dtype):
    p = identity(t)
    assert p.inputs["I"].dtype == dtype and p.outputs["f"].dtype == dtype
    info = np.finfo(dtype) if dtype.kind == "f" else np.iinfo(dtype)
    a = np.array([[info.min, info.max, 0], [1, 2, 3]], dtype=dtype)
    out = p(I=a)
    assert out.dtype == dtype and np.array_equal(out, a)
    assert np.array_equal(p.interpret(I=a), a)


def test_contiguous_and_row_strided_inputs_are_not_copied():
    p = identity("f32")
    a = np.random.default_rng(0).random((40, 30), dtype=np.float32)
    assert p.as_input("I", a) is a
    crop = a[5:25:2, 3:23]                 # rows apart, each row contiguous
    assert p.as_input("I", crop) is crop
    assert np.array_equal(p(I=crop), crop)
    assert np.array_equal(p(I=crop, backend="interp"), crop)


def test_other_layouts_are_copied():
    p = identity("f32")
    a = np.random.default_rng(1).random((30, 20), dtype=np.float32)
    for view in (a.T, a[:, ::2], a[::-1], a.astype(">f4")):
        b = p.as_input("I", view)
        assert b is not view and b.flags.c_contiguous and b.dtype == np.float32
        assert not np.shares_memory(b, a)
        assert np.array_equal(p(I=view), view)


def test_lossless_types_convert_others_refused():
    p = identity("f32")
    u8 = np.arange(12, dtype=np.uint8).reshape(3, 4)
    assert np.array_equal(p(I=u8), u8.astype(np.float32))
    with pytest.raises(polytile.InputError) as e:
        p(I=u8.astype(np.float64))
    assert "input 'I' is float64 but image I is f32" in str(e.value)
    assert "astype(numpy.float32)" in str(e.value)
    q = identity("u8")
    with pytest.raises(polytile.InputError, match="int64 does not convert to uint8 without loss"):
        q(I=np.zeros((2, 2), dtype=np.int64))


def test_lists_and_bad_objects():
    p = identity("i64")
    assert np.array_equal(p(I=[[1, 2], [3, 4]]), np.array([[1, 2], [3, 4]]))
    with pytest.raises(polytile.InputError, match="a str is not an array"):
        p(I="pixels")


def test_wrong_rank_and_extents():
    p = polytile.load(APPS / "harris.pipe")
    with pytest.raises(polytile.InputError, match=r"input 'I' has 3 dimensions but image I : f32 \[R \+ 2, C \+ 2\] has 2"):
        p(I=np.zeros((4, 4, 4), np.float32))
    with pytest.raises(polytile.InputError) as e:
        p(I=np.zeros((10, 10), np.float32), R=10)
    err = e.value
    assert err.file.endswith("harris.pipe") and (err.line, err.column) == (8, 7)
    assert err.message == "input 'I' is 10 x 10 but the pipeline expects 12 x 10 (R + 2, C + 2 with R=10 C=8)"


def test_missing_and_unknown_inputs():
    p = polytile.load(APPS / "interpolate.pipe")
    rgb = np.zeros((3, 10, 12), np.float32)
    with pytest.raises(polytile.InputError, match=r"input 'alpha' is not given: pass alpha=array \(float32, shape \[R \+ 2, C \+ 2\]\)"):
        p(rgb=rgb)
    with pytest.raises(polytile.InputError, match="has no input or param named 'beta'"):
        p(rgb=rgb, alpha=np.zeros((10, 12), np.float32), beta=1)
