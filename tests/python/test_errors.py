"""Errors are exceptions with the location and message polytile prints:
pipelines that do not load, bad params and options, run-time check
failures of compiled code and of the interpreter."""

import numpy as np
import pytest

import polytile
from conftest import APPS


def test_parse_error_located(tmp_path):
    f = tmp_path / "bad.pipe"
    f.write_text("pipeline bad\nparam R : int\nimage I : u8 [R]\n"
                 "func f(x : 0 .. R-1) : int = I(x) + q\noutput f\n")
    with pytest.raises(polytile.ParseError) as e:
        polytile.load(f)
    err = e.value
    assert (err.file, err.line, err.column) == (str(f), 4, 37)
    assert err.message == "unknown name 'q'"
    assert "hint: did you mean 'R'?" in str(err) and "^" in str(err)
    assert isinstance(err, polytile.Error)


def test_parse_error_in_text_and_missing_file(tmp_path):
    with pytest.raises(polytile.ParseError) as e:
        polytile.Pipeline("pipeline p\nfunc f(x : 0 .. 3) : int = x +\noutput f\n", name="mine.pipe")
    assert (e.value.file, e.value.line, e.value.column) == ("mine.pipe", 3, 1)
    assert e.value.message == "expected an expression, found 'output'"
    with pytest.raises(polytile.ParseError) as e:
        polytile.load(tmp_path / "none.pipe")
    assert "none.pipe" in str(e.value)
    with pytest.raises(TypeError):
        polytile.Pipeline()


def test_bad_params():
    p = polytile.load(APPS / "harris.pipe")
    a = np.zeros((12, 12), np.float32)
    with pytest.raises(polytile.ParamError, match="param 'R' is i32 and cannot be 2.5") as e:
        p(I=a, R=2.5)
    assert e.value.file is None or e.value.file.endswith("harris.pipe")
    with pytest.raises(polytile.ParamError, match="not a number"):
        p(I=a, R="ten")
    with pytest.raises(polytile.ParamError):
        p(I=a, R=2 ** 40)                         # past i32
    with pytest.raises(polytile.ParamError, match="has no param 'Q'"):
        p.inputs["I"].shape(Q=3)
    with pytest.raises(polytile.InputError, match="input 'I' is 13 x 12 but the pipeline expects 14 x 12"):
        p(I=np.zeros((13, 12), np.float32), R=12)
    q = polytile.Pipeline("pipeline half\nparam N : int\nimage I : u8 [2*N+1]\n"
                          "func f(x : 0 .. N-1) : u8 = I(2*x)\noutput f\n", name="half.pipe")
    with pytest.raises(polytile.ParamError) as e:
        q(I=np.zeros(6, np.uint8))
    assert (e.value.file, e.value.line, e.value.column) == ("half.pipe", 2, 7)
    assert e.value.message == "param 'N' cannot be inferred from input 'I': its extent 6 is not 2 * N + 1 for any integer N"


def test_params_without_value_or_empty_output():
    p = polytile.Pipeline("pipeline gen\nparam N : int\nfunc f(x : 0 .. N-1) : int = x\noutput f\n", name="gen.pipe")
    with pytest.raises(polytile.ParamError) as e:
        p()
    assert e.value.message == "param 'N' has no value" and e.value.line == 2
    assert np.array_equal(p(N=4), np.arange(4, dtype=np.int32))
    with pytest.raises(polytile.ParamError, match="output 'f' has no point"):
        p(N=0)


@pytest.mark.parametrize("opts,match", [
    (dict(threads=0), r"threads=0: give an integer from 1 to 4096"),
    (dict(threads="2"), r"threads='2'"),
    (dict(backend="gpu"), r"backend='gpu': choose one of 'cpu'"),
    (dict(tile="32xx"), r"tile='32xx': give sizes"),
    (dict(tile=(0, 4)), r"tile=0: give an integer from 1"),
    (dict(overlap=1.5), r"overlap=1.5: give a number in \[0, 1\)"),
    (dict(optimize="yes"), r"optimize='yes': give True or False"),
    (dict(config=3), r"config=3: give the path"),
])
def test_bad_options(opts, match):
    p = polytile.load(APPS / "blur.pipe")
    with pytest.raises(polytile.OptionError, match=match):
        p(I=np.zeros((5, 5), np.uint16), **opts)


def test_config_file_errors(tmp_path):
    p = polytile.load(APPS / "blur.pipe")
    cfg = tmp_path / "b.cfg"
    cfg.write_text("tile = 8x16\noverlap = 2\n")
    with pytest.raises(polytile.OptionError) as e:
        p(I=np.zeros((5, 5), np.uint16), config=cfg)
    assert (e.value.file, e.value.line) == (str(cfg), 2)
    cfg.write_text("tile = 4x8\n")
    a = np.arange(90, dtype=np.uint16).reshape(9, 10)
    assert np.array_equal(p(I=a, config=cfg), p.interpret(I=a))


def test_backend_mpi_refused():
    p = polytile.load(APPS / "blur.pipe")
    with pytest.raises(polytile.OptionError, match="mpirun -np N polytile run FILE --backend mpi"):
        p(I=np.zeros((5, 5), np.uint16), backend="mpi")


def test_run_time_check_failure_is_an_exception():
    src = ("pipeline cases\nparam N : int\nimage I : u8 [N]\nfunc f(x : 0 .. N-1) : int\n"
           "  | I(x) < 5 -> 1\n  | I(x) > 3 -> 2\noutput f\n")
    p = polytile.Pipeline(src, name="cases.pipe")
    ok = np.array([0, 1, 7, 9], np.uint8)
    assert np.array_equal(p(I=ok), [1, 1, 2, 2])
    bad = np.array([0, 4], np.uint8)           # both cases hold at 4
    with pytest.raises(polytile.RunError) as e:
        p(I=bad)
    assert e.value.message == ("the compiled pipeline failed: two cases of a stage hold at one point: "
                               "cases 1 and 2 of 'f' both hold at (1)")
    with pytest.raises(polytile.RunError) as e:
        p.interpret(I=bad)
    assert e.value.file == "cases.pipe"
    assert np.array_equal(p(I=ok), [1, 1, 2, 2])     # the pipeline still runs
