"""The exceptions of polytile.

Every error polytile reports is a :class:`Error`; its ``str()`` is the
text the ``polytile`` command prints (``file:line:col: error: ...``, the
source line, a caret and a hint), and its attributes hold the first
error's location and message.
"""

from __future__ import annotations

import re
from typing import Optional, Tuple

_LOCATED = re.compile(r"^(.+?):(\d+):(\d+): error: (.*)$")
_FILE_LINE = re.compile(r"^(.+?):(\d+): (.*)$")
_UNLOCATED = re.compile(r"^(?:polytile: )?error: (.*)$")


def _locate(text: str) -> Tuple[Optional[str], Optional[int], Optional[int], str]:
    """(file, line, column, message) of the first error in text."""
    lines = text.splitlines()
    for ln in lines:
        m = _LOCATED.match(ln)
        if m:
            return m.group(1), int(m.group(2)), int(m.group(3)), m.group(4)
    for ln in lines:
        m = _UNLOCATED.match(ln)
        if m:
            return None, None, None, m.group(1)
    for ln in lines:   # a configuration file's "FILE:LINE: what"
        m = _FILE_LINE.match(ln)
        if m:
            return m.group(1), int(m.group(2)), None, m.group(3)
    return None, None, None, lines[0] if lines else ""


class Error(Exception):
    """An error polytile reported.

    Attributes:
        file: the file the first error is located in (``<string>`` for a
            pipeline given as text), or None.
        line, column: its position (1-based), or None.
        message: the first error's message, without location.
        diagnostics: the whole text polytile printed.
    """

    file: Optional[str]
    line: Optional[int]
    column: Optional[int]
    message: str
    diagnostics: str

    def __init__(self, text: str) -> None:
        text = str(text).rstrip("\n")
        super().__init__(text)
        self.diagnostics = text
        self.file, self.line, self.column, self.message = _locate(text)


class ParseError(Error):
    """The pipeline does not load: syntax, type or static-rule errors."""


class ParamError(Error, ValueError):
    """A param is unknown, not a number, out of its type's range, not an
    integer, or has no value (neither given, inferred nor estimated)."""


class InputError(Error, ValueError):
    """An input is missing, of the wrong element type (not convertible
    without loss), rank or extents, or not an array."""


class OptionError(Error, ValueError):
    """A compiler option (threads, backend, tile, overlap, config, ...)
    has a bad value; the message names the argument."""


class CompileError(Error):
    """Compiling failed (a target LLVM cannot use, a backend not built,
    an output file that cannot be written, ...)."""


class RunError(Error):
    """Running failed: a run-time check of the compiled pipeline (a read
    outside an image, two cases holding at a point, ...) or of the
    interpreter, or a device error."""


def raise_error(cls: type, message: str) -> None:
    """Raises cls with message, as polytile prints unlocated errors."""
    raise cls("polytile: error: " + message)
