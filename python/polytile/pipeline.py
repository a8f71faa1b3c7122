"""polytile.Pipeline: a pipeline loaded from a ``.pipe`` file or text,
run on numpy arrays (compiled, or by the reference interpreter)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import threading
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Mapping, NamedTuple, Optional, Tuple, Union

import numpy as np

from . import _polytile
from .errors import Error, InputError, OptionError, ParamError, RunError, raise_error
from .options import OPTION_NAMES, pack

#: The language's element types in pt_type order: names and numpy dtypes.
TYPE_NAMES = ("u8", "u16", "u32", "i8", "i16", "i32", "i64", "f32", "f64")
DTYPES = tuple(np.dtype(t) for t in ("uint8", "uint16", "uint32", "int8", "int16", "int32",
                                     "int64", "float32", "float64"))

Array = np.ndarray
Result = Union[Array, Dict[str, Array]]


class Param(NamedTuple):
    """A param: its name, type (``i32``, ``f32``, ...) and estimate (the
    value it takes when neither given nor inferred; None: none)."""
    name: str
    type: str
    estimate: Optional[Union[int, float]]


@dataclass(frozen=True)
class Image:
    """An input image: name, element type, numpy dtype, and extents as
    the pipeline writes them (``("R + 2", "C + 2")``); ``shape(R=.., C=..)``
    evaluates them."""
    name: str
    type: str
    dtype: np.dtype
    extents: Tuple[str, ...]
    _shape: Callable[..., Tuple[int, ...]]

    @property
    def ndim(self) -> int:
        return len(self.extents)

    def shape(self, **params: float) -> Tuple[int, ...]:
        """The shape an input must have at these params (others: their
        estimates)."""
        return self._shape(**params)


@dataclass(frozen=True)
class Stage:
    """A stage (a function or reduction); outputs are the stages a run
    returns.  ``box(**params)`` gives the (lo, extent) its array covers:
    an output's array index i is domain point lo + i."""
    name: str
    type: str
    dtype: np.dtype
    ndim: int
    is_output: bool
    _box: Callable[..., Tuple[Tuple[int, ...], Tuple[int, ...]]]

    def box(self, **params: float) -> Tuple[Tuple[int, ...], Tuple[int, ...]]:
        return self._box(**params)


class Group(NamedTuple):
    """A group of the optimized (-O1) schedule, as ``explain`` lists it:
    its index, name (its last stage), stages, and tile sizes (outermost
    first; None when the group is not tiled)."""
    index: int
    name: str
    stages: Tuple[str, ...]
    tile: Optional[Tuple[int, ...]]


def _split_top(text: str) -> List[str]:
    """text split at the commas outside parentheses."""
    out, depth, cur = [], 0, ""
    for ch in text:
        depth += ch in "([" and 1 or (ch in ")]" and -1 or 0)
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    return out + [cur.strip()] if cur.strip() else out


class Pipeline:
    """A checked pipeline.

    ``Pipeline(source)`` reads ``.pipe`` text; ``Pipeline(path=...)`` or
    :func:`polytile.load` a file.  A syntax, type or rule error raises
    :class:`polytile.ParseError` located at it.

    Calling it runs it: ``p(I=array, R=..., threads=2)`` returns the output
    as a numpy array, or a dict of them when there are several.  Compiled
    programs are kept per options (the first call compiles; the compile
    cache makes a later process skip LLVM).  Safe to call from several
    threads at once: runs release the GIL and proceed in parallel;
    compiling and the interpreter take the pipeline's lock.
    """

    def __init__(self, source: Optional[str] = None, *, path: Union[None, str, os.PathLike] = None,
                 name: str = "<string>") -> None:
        if (source is None) == (path is None):
            raise TypeError("Pipeline() takes the source text or path=, one of them")
        self._lock = threading.Lock()
        self._programs: Dict[tuple, Any] = {}
        self._ext = _polytile.Pipeline(path=os.fspath(path) if path is not None else None,
                                       source=source, name=name)
        info = self._ext.info()
        self.name: str = info["name"]
        extents = self._image_extents_text()
        self.params: Dict[str, Param] = {}
        for name_, t, est in info["params"]:
            if est is not None and TYPE_NAMES[t] in ("i32", "i64"):
                est = int(est)
            self.params[name_] = Param(name_, TYPE_NAMES[t], est)
        self.inputs: Dict[str, Image] = {}
        for i, (name_, t, nd, _const) in enumerate(info["images"]):
            ext = extents[i] if extents[i] and len(extents[i]) == nd else tuple("?" * nd)
            self.inputs[name_] = Image(name_, TYPE_NAMES[t], DTYPES[t], ext, self._shape_fn(i))
        self.stages: Dict[str, Stage] = {}
        for s, (name_, t, nd, out) in enumerate(info["stages"]):
            self.stages[name_] = Stage(name_, TYPE_NAMES[t], DTYPES[t], nd, out, self._box_fn(s))
        self.outputs: Dict[str, Stage] = {o: self.stages[o] for o in info["outputs"]}

    # (functions of the params by keyword: any name, `i` and `s` too)
    def _shape_fn(self, i: int) -> Callable[..., Tuple[int, ...]]:
        return lambda **kw: self._ext.image_extents(i, self._values(kw))

    def _box_fn(self, s: int) -> Callable[..., Tuple[Tuple[int, ...], Tuple[int, ...]]]:
        return lambda **kw: self._ext.stage_box(s, self._values(kw))

    def _image_extents_text(self) -> List[Optional[Tuple[str, ...]]]:
        """Each image's extents as text, from the `check` listing."""
        found: Dict[str, Tuple[str, ...]] = {}
        for ln in self.check().splitlines():
            m = re.match(r"^\s*image (\S+) : \S+ \[(.*)\]\s*$", ln)
            if m:
                found[m.group(1)] = tuple(_split_top(m.group(2)))
        return [found.get(im[0]) for im in self._ext.info()["images"]]

    def __repr__(self) -> str:
        return (f"<polytile.Pipeline {self.name}: params {', '.join(self.params) or '-'}; "
                f"inputs {', '.join(self.inputs) or '-'}; outputs {', '.join(self.outputs)}>")

    # ---- params and inputs ----

    def _values(self, given: Mapping[str, float]) -> List[float]:
        """Every param's value: given, else its estimate (no inference)."""
        for k in given:
            if k not in self.params:
                raise_error(ParamError, f"pipeline '{self.name}' has no param '{k}'"
                            f" (its params: {', '.join(self.params) or 'none'})")
        vals = []
        for name, p in self.params.items():
            if name in given:
                vals.append(self._check_param(name, given[name]))
            elif p.estimate is not None:
                vals.append(float(p.estimate))
            else:
                raise_error(ParamError, f"param '{name}' has no value: pass {name}=...")
        return vals

    def _check_param(self, name: str, value: Any) -> float:
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
            raise_error(ParamError, f"param {name}={value!r}: not a number")
        return self._ext.check_param(name, float(value))

    def as_input(self, name: str, value: Any) -> Array:
        """The array a run passes for input name: value itself when its
        element type is the image's, its byte order native, its rows
        contiguous and its strides positive (no copy); a copy when only
        the layout differs or the element type converts without loss
        (numpy's safe casting, e.g. u8 to f32); else InputError."""
        im = self.inputs.get(name)
        if im is None:
            raise_error(InputError, f"pipeline '{self.name}' has no input '{name}'"
                        f" (its inputs: {', '.join(self.inputs) or 'none'})")
        if not isinstance(value, np.ndarray):
            if not isinstance(value, (list, tuple)) and not hasattr(value, "__array__") \
                    and not hasattr(value, "__array_interface__"):
                raise_error(InputError, f"input '{name}': a {type(value).__name__} is not an array;"
                            f" give a numpy array of {im.dtype} with {im.ndim} dimensions")
            value = np.asarray(value)
        a = value
        if a.ndim != im.ndim:
            raise_error(InputError, f"input '{name}' has {a.ndim} dimension{'s' * (a.ndim != 1)} but image"
                        f" {name} : {im.type} [{', '.join(im.extents)}] has {im.ndim}")
        if a.dtype.newbyteorder("=") != im.dtype:
            if not np.can_cast(a.dtype, im.dtype, casting="safe"):
                raise_error(InputError, f"input '{name}' is {a.dtype} but image {name} is {im.type} ({im.dtype});"
                            f" {a.dtype} does not convert to {im.dtype} without loss: convert it"
                            f" (e.g. {name}.astype(numpy.{im.dtype}))")
            return np.ascontiguousarray(a, dtype=im.dtype)
        isz = a.dtype.itemsize
        rows_ok = a.shape[-1] <= 1 or a.strides[-1] == isz
        strides_ok = all(s > 0 and s % isz == 0 for s, n in zip(a.strides, a.shape) if n > 1)
        if a.dtype.isnative and a.flags.aligned and rows_ok and strides_ok:
            return a
        return np.ascontiguousarray(a, dtype=im.dtype)

    def _bind(self, args: Dict[str, Any]) -> Tuple[List[Array], List[float]]:
        """The inputs (image order) and every param's value from the
        keyword arguments, params inferred from the inputs' shapes as
        `polytile run` does."""
        given: Dict[str, Any] = {}
        arrays: Dict[str, Array] = {}
        for k, v in args.items():
            if k in self.inputs:
                arrays[k] = self.as_input(k, v)
            elif k in self.params:
                given[k] = self._check_param(k, v)
            else:
                raise_error(InputError, f"pipeline '{self.name}' has no input or param named '{k}'"
                            f" (inputs: {', '.join(self.inputs) or 'none'};"
                            f" params: {', '.join(self.params) or 'none'})")
        for name, im in self.inputs.items():
            if name not in arrays:
                raise_error(InputError, f"input '{name}' is not given: pass {name}=array"
                            f" ({im.dtype}, shape [{', '.join(im.extents)}])")
        specs = [(DTYPES.index(arrays[n].dtype), arrays[n].shape) for n in self.inputs]
        with self._lock:
            values = self._ext.infer([given.get(n) for n in self.params], specs)
        return [arrays[n] for n in self.inputs], values

    def _outputs(self, values: List[float], compiled: bool) -> List[Array]:
        outs = []
        for name, st in self.outputs.items():
            _lo, ext = self._ext.stage_box(list(self.stages).index(name), values)
            if compiled and any(e < 1 for e in ext):
                raise_error(ParamError, f"output '{name}' has no point at these params ({self._params_text(values)});"
                            " compiled code needs every stage non-empty (backend='interp' runs it)")
            outs.append(np.zeros(tuple(max(e, 0) for e in ext), dtype=st.dtype))
        return outs

    def _params_text(self, values: List[float]) -> str:
        return " ".join(f"{n}={int(v) if p.type in ('i32', 'i64') else v}"
                        for (n, p), v in zip(self.params.items(), values))

    def _result(self, outs: List[Array]) -> Result:
        if len(outs) == 1:
            return outs[0]
        return dict(zip(self.outputs, outs))

    @staticmethod
    def _split(kwargs: Dict[str, Any]) -> Tuple[Dict[str, Any], Dict[str, Any]]:
        """(options, inputs and params) from one call's keyword arguments."""
        opts = {k: kwargs.pop(k) for k in list(kwargs) if k in OPTION_NAMES}
        return opts, kwargs

    # ---- running ----

    def __call__(self, inputs: Optional[Mapping[str, Any]] = None, **kwargs: Any) -> Result:
        """Runs the pipeline: inputs and params by name (or in the inputs
        mapping, for names that are also options), options as keywords
        (threads, backend, optimize, tile, overlap, config, no_inline,
        cache, compile_threads, target, separate_tiles; docs/python.md).
        backend='interp' runs the reference interpreter."""
        opts, args = self._split(dict(kwargs))
        args.update(inputs or {})
        if opts.get("backend") == "interp":
            return self.interpret(args)
        program = self._program(opts)
        arrays, values = self._bind(args)
        outs = self._outputs(values, compiled=True)
        program.run(values, arrays, outs)
        return self._result(outs)

    def interpret(self, inputs: Optional[Mapping[str, Any]] = None, **kwargs: Any) -> Result:
        """Runs the reference interpreter (what the pipeline means): slow,
        and the judge of the compiled code.  Points no case defines are 0."""
        args = dict(kwargs)
        args.update(inputs or {})
        arrays, values = self._bind(args)
        outs = self._outputs(values, compiled=False)
        with self._lock:
            self._ext.interpret(values, arrays, outs)
        return self._result(outs)

    def _program(self, opts: Dict[str, Any]) -> Any:
        key = pack(**opts)
        with self._lock:
            prog = self._programs.get(key)
            if prog is None:
                prog = self._programs[key] = self._ext.compile(key)
        return prog

    def compile_program(self, **options: Any) -> None:
        """Compiles now for these options (a later call with them reuses
        it); raises CompileError."""
        self._program(options)

    # ---- listings and files ----

    def check(self) -> str:
        """The ``polytile check`` listing: params, images, each stage with
        its domain, cases and producers, then "N stages"."""
        with self._lock:
            return self._ext.describe()

    def explain(self, **options: Any) -> str:
        """What the optimizer does (``polytile explain``): groups, tiles,
        storage, refused merges."""
        key = pack(**options)
        with self._lock:
            return self._ext.explain(key)

    def groups(self, **options: Any) -> List[Group]:
        """The optimizer's groups as data (those ``explain`` lists)."""
        key = pack(**options)
        with self._lock:
            text = self._ext.explain(key)
            summary = self._ext.group_summary(key)
        tiles = dict(summary["tiled"])
        # each group's last listing (a tiled group is listed before its
        # tile model's program too): "group N: A B C*" or "... (untiled)"
        found: Dict[int, Tuple[str, ...]] = {}
        for ln in text.splitlines():
            m = re.match(r"^group (\d+): (.*?)\s*(\(untiled\))?$", ln)
            if m:
                found[int(m.group(1))] = tuple(s.rstrip("*") for s in m.group(2).split())
        out: List[Group] = []
        for i in sorted(found):
            name = found[i][-1]
            out.append(Group(i, name, found[i], tiles.get(name)))
        return out

    def graph(self, path: Union[str, os.PathLike], grouped: bool = False, **options: Any) -> str:
        """Draws the stage graph (grouped: -O1's groups as clusters) to
        path: ``.dot`` as text, ``.svg`` or ``.png`` through Graphviz's
        ``dot``.  Returns path."""
        path = os.fspath(path)
        ext = os.path.splitext(path)[1]
        if ext not in (".dot", ".svg", ".png"):
            raise_error(OptionError, f"graph path {path!r}: end it in .svg, .png or .dot")
        key = pack(**options)
        with self._lock:
            text = self._ext.dot(bool(grouped), key)
        if ext == ".dot":
            with open(path, "w") as f:
                f.write(text)
            return path
        dot = shutil.which("dot")
        if not dot:
            raise_error(Error, "graph: Graphviz's `dot` is not found (apt-get install graphviz); write a .dot file instead")
        r = subprocess.run([dot, "-T" + ext[1:], "-o", path], input=text.encode(), capture_output=True)
        if r.returncode:
            raise_error(Error, f"graph: dot failed: {r.stderr.decode(errors='replace').strip()}")
        return path

    def compile(self, base: Union[str, os.PathLike], **options: Any) -> Tuple[str, str]:
        """Compiles ahead of time to base.o and base.h (``polytile
        compile -o base``): a C function named after base's file name.
        Returns the two paths."""
        base = os.fspath(base)
        fname = os.path.basename(base)
        why = _polytile.function_name_reserved(fname)
        if why:
            raise_error(OptionError, f"compile({base!r}): the function would be named '{fname}', which is {why}")
        if "threads" in options:
            raise_error(OptionError, "threads is for runs; a compiled function uses pt_set_num_threads() or OMP_NUM_THREADS")
        key = pack(**options)
        with self._lock:
            self._ext.compile_files(base, key)
        return base + ".o", base + ".h"


def load(path: Union[str, os.PathLike]) -> Pipeline:
    """Loads and checks the pipeline in a ``.pipe`` file."""
    return Pipeline(path=path)
