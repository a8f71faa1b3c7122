"""polytile from Python: image-processing pipelines written in polytile's
``.pipe`` language, compiled by polytile and run on numpy arrays.

>>> import polytile, numpy as np
>>> p = polytile.load("apps/harris.pipe")
>>> out = p(I=np.random.rand(514, 514).astype(np.float32), threads=2)

docs/python.md describes the package; docs/language.md the language.
"""

from .errors import (CompileError, Error, InputError, OptionError, ParamError, ParseError,
                     RunError)
from .pipeline import DTYPES, TYPE_NAMES, Group, Image, Param, Pipeline, Stage, load

__all__ = ["Pipeline", "load", "Param", "Image", "Stage", "Group", "Error", "ParseError",
           "ParamError", "InputError", "OptionError", "CompileError", "RunError",
           "TYPE_NAMES", "DTYPES"]
