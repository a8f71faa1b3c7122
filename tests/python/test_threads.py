"""Concurrent calls from several Python threads: results equal serial
ones, and runs release the GIL (other Python threads make progress
while a pipeline runs)."""

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np

import polytile
from conftest import APPS, app_inputs


def test_concurrent_calls_match_serial():
    harris = polytile.load(APPS / "harris.pipe")
    blur = polytile.load(APPS / "blur.pipe")
    rng = np.random.default_rng(3)
    jobs = []
    for k in range(16):
        if k % 2:
            jobs.append((harris, dict(I=rng.random((40 + k, 33 + k), dtype=np.float32), threads=2)))
        else:
            jobs.append((blur, dict(I=rng.integers(0, 60000, (50 + k, 31), dtype=np.uint16))))
    serial = [p(**kw) for p, kw in jobs]
    with ThreadPoolExecutor(max_workers=6) as ex:
        for _ in range(3):
            parallel = list(ex.map(lambda j: j[0](**j[1]), jobs))
            for a, b in zip(serial, parallel):
                assert a.dtype == b.dtype and np.array_equal(a, b)


def test_first_calls_compile_once_concurrently():
    p = polytile.load(APPS / "sobel.pipe")
    ins = app_inputs(p, dict(R=30, C=20))
    with ThreadPoolExecutor(max_workers=4) as ex:
        outs = list(ex.map(lambda _: p(**ins, tile=(8, 16)), range(8)))
    assert len(p._programs) == 1
    for o in outs[1:]:
        assert np.array_equal(o, outs[0])


def test_runs_release_the_gil():
    """While one thread is inside a run (the compiled code alone: the
    package's own steps around it hold the GIL briefly), another ticks
    every millisecond; were the GIL held, it would wait a whole run."""
    p = polytile.load(APPS / "harris.pipe")
    a = np.random.default_rng(4).random((3002, 3002), dtype=np.float32)
    prog = p._program(dict(threads=1))
    arrays, values = p._bind(dict(I=a))
    outs = p._outputs(values, compiled=True)
    prog.run(values, arrays, outs)                 # warm: pages, threads
    start = time.perf_counter()
    prog.run(values, arrays, outs)
    alone = time.perf_counter() - start
    ticks = []
    done = threading.Event()

    def run():
        for _ in range(3):
            prog.run(values, arrays, outs)
        done.set()

    t = threading.Thread(target=run)
    t.start()
    while not done.is_set():
        ticks.append(time.perf_counter())
        time.sleep(0.001)
    t.join()
    # Gaps between ticks only: starting the thread is not a run.
    # A held GIL would leave one gap of a whole run per run (three); one
    # long gap alone is the shared machine descheduling us, so the
    # second longest is the one that must be short.
    gaps = np.sort(np.diff(ticks))
    assert alone > 0.01
    assert len(ticks) >= 10 * 3, (len(ticks), alone)
    assert gaps[-2] < alone / 2, (gaps[-3:], alone)
    assert np.array_equal(outs[0], p(I=a))
