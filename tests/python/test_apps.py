"""Every app through Python equals `polytile run` on the same inputs
(.npy files), byte for byte, and the interpreter."""

import re
import subprocess

import numpy as np
import pytest

import polytile
from conftest import APP_PARAMS, APPS, app_inputs


def cli_run(cli, app, p, ins, params, tmp_path):
    """`polytile run` of app on ins: its outputs by name."""
    cmd = [cli, "run", str(APPS / (app + ".pipe")), "--quiet"]
    for k, v in params.items():
        cmd += ["--param", f"{k}={v}"]
    for name, a in ins.items():
        f = tmp_path / f"in_{name}.npy"
        np.save(f, a)
        cmd += ["--in", f"{name}={f}"]
    files = {}
    for name in p.outputs:
        files[name] = tmp_path / ("out_" + re.sub(r"\W", "_", name) + ".npy")
        cmd += ["--out", f"{name}={files[name]}"]
    r = subprocess.run(cmd, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return {name: np.load(f) for name, f in files.items()}


@pytest.mark.parametrize("app", sorted(APP_PARAMS))
def test_app_equals_cli(app, cli, tmp_path):
    p = polytile.load(APPS / (app + ".pipe"))
    params = APP_PARAMS[app]
    ins = app_inputs(p, params)
    # params the inputs give are inferred; the others (heat3d's T) passed
    extra = {k: v for k, v in params.items() if k in ("T",)}
    out = p(**ins, **extra)
    outs = out if isinstance(out, dict) else {next(iter(p.outputs)): out}
    ref = cli_run(cli, app, p, ins, params, tmp_path)
    for name in p.outputs:
        assert outs[name].dtype == ref[name].dtype, name
        assert outs[name].shape == ref[name].shape, name
        assert outs[name].tobytes() == ref[name].tobytes(), name
