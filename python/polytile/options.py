"""Compiler options of polytile, checked and packed for the extension.

The keyword arguments of :meth:`polytile.Pipeline.__call__`,
``explain``, ``graph`` and ``compile`` (docs/python.md): each is the
``polytile`` command's flag of the same name (docs/cli.md).
"""

from __future__ import annotations

import os
import re
from typing import Any, Optional, Sequence, Tuple, Union

from .errors import OptionError, raise_error

#: Backends by name, in pt_backend's order; "interp" is the interpreter.
BACKENDS = {"cpu": 0, "cuda": 1, "mpi": 2, "cuda-emu": 3}

OPTION_NAMES = ("threads", "backend", "optimize", "tile", "overlap", "config", "no_inline",
                "cache", "compile_threads", "target", "separate_tiles", "time")

TileArg = Union[None, str, int, Sequence[int]]


def _int(name: str, v: Any, lo: int, hi: int) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
        raise_error(OptionError, f"{name}={v!r}: give an integer from {lo} to {hi}")
    return v


def _tile(v: TileArg) -> Tuple[Tuple[int, ...], bool]:
    """(sizes, fixed) from None, "fixed", 32, "32x256" or (32, 256)."""
    if v is None or v == "default":
        return (), False
    if v == "fixed":
        return (), True
    if isinstance(v, str):
        if not re.fullmatch(r"\d+(x\d+)*", v):
            raise_error(OptionError, f"tile={v!r}: give sizes like '32x256' or (32, 256), or 'fixed'")
        v = [int(s) for s in v.split("x")]
    elif isinstance(v, int) and not isinstance(v, bool):
        v = [v]
    try:
        sizes = tuple(v)
    except TypeError:
        raise_error(OptionError, f"tile={v!r}: give sizes like '32x256' or (32, 256), or 'fixed'")
    if not 1 <= len(sizes) <= 8:
        raise_error(OptionError, f"tile={v!r}: give 1 to 8 sizes")
    return tuple(_int("tile", s, 1, 1 << 20) for s in sizes), False


def _overlap(v: Optional[float]) -> float:
    if v is None:
        return -1.0
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 <= v < 1:
        raise_error(OptionError, f"overlap={v!r}: give a number in [0, 1)")
    return float(v)


def _flag(name: str, v: Any) -> bool:
    if not isinstance(v, (bool, int)) or v not in (0, 1):
        raise_error(OptionError, f"{name}={v!r}: give True or False")
    return bool(v)


def pack(threads: Optional[int] = None, backend: str = "cpu", optimize: Union[bool, int] = True,
         tile: TileArg = None, overlap: Optional[float] = None,
         config: Union[None, str, os.PathLike] = None, no_inline: bool = False, cache: bool = True,
         compile_threads: int = 0, target: Optional[str] = None,
         separate_tiles: bool = False, time: bool = False) -> tuple:
    """The options as the extension's tuple (ext/options.c), each checked
    with an OptionError naming it."""
    if backend not in BACKENDS:
        raise_error(OptionError, f"backend={backend!r}: choose one of "
                    + ", ".join(repr(b) for b in list(BACKENDS) + ["interp"]))
    if backend == "mpi":
        # a Python process is not a rank of an MPI job that polytile
        # starts; the MPI target runs under mpirun (docs/distributed.md)
        raise_error(OptionError, "backend='mpi': run MPI pipelines with `mpirun -np N polytile run FILE "
                    "--backend mpi`, or from C on every rank (docs/distributed.md)")
    nthreads = 0 if threads is None else _int("threads", threads, 1, 4096)
    level = 0 if _flag("optimize", optimize) else 1
    sizes, fixed = _tile(tile)
    if config is not None:
        if not isinstance(config, (str, os.PathLike)):
            raise_error(OptionError, f"config={config!r}: give the path of a configuration file")
        config = os.fspath(config)
    if target is not None and not isinstance(target, str):
        raise_error(OptionError, f"target={target!r}: give TRIPLE[:CPU[:FEATURES]]")
    return (nthreads, BACKENDS[backend], level, sizes, fixed, _overlap(overlap), config,
            _flag("no_inline", no_inline), _flag("cache", cache),
            _int("compile_threads", compile_threads, 0, 4096), target,
            _flag("separate_tiles", separate_tiles), None, _flag("time", time))
