"""The package's surface: loading, what a pipeline declares, listings,
the AOT files, several outputs, the interpreter, the compile cache."""

import os
import subprocess
import sys

import numpy as np
import pytest

import polytile
from conftest import APPS, app_inputs


def test_load_declarations():
    p = polytile.load(APPS / "harris.pipe")
    assert p.name == "harris"
    assert list(p.params) == ["R", "C"]
    assert p.params["R"] == polytile.Param("R", "i32", 6400)
    im = p.inputs["I"]
    assert (im.type, im.dtype, im.extents) == ("f32", np.float32, ("R + 2", "C + 2"))
    assert im.shape(R=10, C=12) == (12, 14)
    assert im.shape() == (6402, 6402)          # the estimates
    assert list(p.outputs) == ["harris"]
    assert p.outputs["harris"].box(R=10, C=12) == ((0, 0), (12, 14))
    assert len(p.stages) == int(p.check().splitlines()[-1].split()[0])


def test_source_text_and_call():
    p = polytile.Pipeline("pipeline twice\nparam N : int\nimage I : i32 [N]\n"
                          "func f(x : 0 .. N-1) : i32 = I(x) * 2\noutput f\n")
    a = np.arange(7, dtype=np.int32)
    assert np.array_equal(p(I=a), a * 2)
    assert np.array_equal(p(inputs={"I": a}, threads=1), a * 2)


def test_compiled_equals_interpreter():
    p = polytile.load(APPS / "unsharp_mask.pipe")
    ins = app_inputs(p, dict(R=21, C=17))
    compiled = p(**ins)
    assert compiled.shape == (3, 21, 17) and compiled.dtype == np.float32
    assert p.outputs["mask"].box(R=21, C=17) == ((0, 2, 2), (3, 21, 17))
    interpreted = p.interpret(**ins)
    assert np.array_equal(compiled, interpreted)
    assert np.array_equal(p(**ins, backend="interp"), interpreted)
    assert np.array_equal(p(**ins, optimize=False), interpreted)   # -O0
    assert np.array_equal(p(**ins, tile=(4, 8), threads=2), interpreted)
    assert np.array_equal(p(**ins, backend="cuda-emu"), interpreted)   # the GPU mapping, emulated
    try:                                        # a real GPU where there is one
        assert np.array_equal(p(**ins, backend="cuda"), interpreted)
    except polytile.RunError as e:
        assert "no CUDA driver" in e.message or "GPU" in e.message


def test_several_outputs_dict():
    p = polytile.load(APPS / "heat3d.pipe")
    ins = app_inputs(p, dict(N=9, T=3))
    out = p(**ins, T=3)
    assert set(out) == {"once", "last"}
    ref = p.interpret(**ins, T=3)
    for k in out:
        assert np.array_equal(out[k], ref[k])


def test_tuple_components_are_outputs():
    # a tuple reduction's components are stages am_0, am_1 (docs §12)
    p = polytile.Pipeline("pipeline t\nparam N : int\nimage I : i32 [N]\n"
                          "reduce am(k : 0 .. 0) : (int, int) over (x : 0 .. N-1)\n"
                          "  | am(0) argmin= (I(x), x)\noutput am\n")
    assert list(p.outputs) == ["am_0", "am_1"]
    a = np.array([5, 2, 7, 2], dtype=np.int32)
    out = p(I=a)
    assert (out["am_0"][0], out["am_1"][0]) == (2, 1)     # the first of the ties
    ref = p.interpret(I=a)
    for k in out:
        assert np.array_equal(out[k], ref[k])


def test_explain_groups_graph(tmp_path):
    p = polytile.load(APPS / "harris.pipe")
    assert p.explain().startswith("harris at R=6400 C=6400")
    groups = p.groups()
    assert [g.name for g in groups] == ["harris"]
    assert groups[0].stages[-1] == "harris" and "Ixx" in groups[0].stages
    assert groups[0].tile is not None and len(groups[0].tile) == 2
    fixed = p.groups(tile=(16, 64))
    assert fixed[0].tile == (16, 64)
    apart = p.groups(no_inline=True, overlap=0.0)     # explain lists 6 groups
    assert [g.index for g in apart] == list(range(6))
    assert [g.stages for g in apart[:2]] == [("Ix",), ("Iy",)] and apart[0].tile is None
    assert apart[5].stages[-1] == "harris" and apart[5].tile is not None
    dot = p.graph(tmp_path / "g.dot")
    assert "digraph" in open(dot).read()
    svg = p.graph(tmp_path / "g.svg", grouped=True)
    assert open(svg).read().lstrip().startswith("<?xml")
    with pytest.raises(polytile.OptionError, match="end it in .svg, .png or .dot"):
        p.graph(tmp_path / "g.txt")


def test_aot_compile(tmp_path):
    p = polytile.load(APPS / "harris.pipe")
    o, h = p.compile(tmp_path / "corners")
    assert os.path.getsize(o) > 0
    assert "int corners(" in open(h).read()
    with pytest.raises(polytile.OptionError, match="'int', which is"):
        p.compile(tmp_path / "int")


def test_cache_second_process_skips_llvm(tmp_path):
    """A second process compiling the same pipeline hits the cache."""
    code = ("import polytile, numpy as np\n"
            f"p = polytile.load({str(APPS / 'blur.pipe')!r})\n"
            "p(I=np.ones((23, 19), np.uint16), time=True)\n")
    env = dict(os.environ, PT_CACHE_DIR=str(tmp_path / "cache"))
    first = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    second = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert first.returncode == 0 and second.returncode == 0, first.stderr + second.stderr
    # --time's phases: LLVM's (optimize, object) only in the first
    assert "polytile: object" in first.stderr and "cache store" in first.stderr
    assert "cache hit" not in first.stderr
    assert "cache hit" in second.stderr
    assert "polytile: object" not in second.stderr and "polytile: optimize" not in second.stderr
    nocache = subprocess.run([sys.executable, "-c", code.replace("time=True", "time=True, cache=False")],
                             env=env, capture_output=True, text=True)
    assert nocache.returncode == 0 and "polytile: object" in nocache.stderr
    assert "cache hit" not in nocache.stderr


def test_docs_example_runs_as_written(tmp_path):
    """docs/python.md's worked example, run from the repository's root."""
    from conftest import ROOT
    text = (ROOT / "docs" / "python.md").read_text()
    blocks = text.split("```python\n")[1:]
    assert blocks, "docs/python.md has no python example"
    code = blocks[0].split("```")[0]
    r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "<polytile.Pipeline harris: params R, C; inputs I; outputs harris>" in r.stdout
    assert "input 'I' is float64 but image I is f32" in r.stdout


def test_params_named_like_arguments():
    p = polytile.Pipeline("pipeline t\nparam i : int\nparam s : int\nimage I : u8 [i, s+1]\n"
                          "func f(x : 0 .. i-1) : u8 = I(x, 0)\noutput f\n")
    assert p.inputs["I"].shape(i=3, s=4) == (3, 5)
    assert p.outputs["f"].box(i=5, s=1) == ((0,), (5,))
