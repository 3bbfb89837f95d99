"""The code of ``records.builder``'s functions for up to nine fields, written out so that
the ``.pyc`` holds it: ``builder`` gives it each class's setters and field names (its
globals ``_new``, ``_cls``, ``_set0``... and variable names are the class's), and
compiles the code of a larger count when it meets one. Compiling it at import was
eight compilations, 50-100 µs each."""

from __future__ import annotations

from types import CodeType
from typing import Any

_new: Any = None
_cls: Any = None
_set0: Any = None
_set1: Any = None
_set2: Any = None
_set3: Any = None
_set4: Any = None
_set5: Any = None
_set6: Any = None
_set7: Any = None
_set8: Any = None
_set9: Any = None


def _build0() -> Any:
    self = _new(_cls)
    return self


def _build1(p0: Any) -> Any:
    self = _new(_cls)
    _set0(self, p0)
    return self


def _build2(p0: Any, p1: Any) -> Any:
    self = _new(_cls)
    _set0(self, p0)
    _set1(self, p1)
    return self


def _build3(p0: Any, p1: Any, p2: Any) -> Any:
    self = _new(_cls)
    _set0(self, p0)
    _set1(self, p1)
    _set2(self, p2)
    return self


def _build4(p0: Any, p1: Any, p2: Any, p3: Any) -> Any:
    self = _new(_cls)
    _set0(self, p0)
    _set1(self, p1)
    _set2(self, p2)
    _set3(self, p3)
    return self


def _build5(p0: Any, p1: Any, p2: Any, p3: Any, p4: Any) -> Any:
    self = _new(_cls)
    _set0(self, p0)
    _set1(self, p1)
    _set2(self, p2)
    _set3(self, p3)
    _set4(self, p4)
    return self


def _build6(p0: Any, p1: Any, p2: Any, p3: Any, p4: Any, p5: Any) -> Any:
    self = _new(_cls)
    _set0(self, p0)
    _set1(self, p1)
    _set2(self, p2)
    _set3(self, p3)
    _set4(self, p4)
    _set5(self, p5)
    return self


def _build7(p0: Any, p1: Any, p2: Any, p3: Any, p4: Any, p5: Any, p6: Any) -> Any:
    self = _new(_cls)
    _set0(self, p0)
    _set1(self, p1)
    _set2(self, p2)
    _set3(self, p3)
    _set4(self, p4)
    _set5(self, p5)
    _set6(self, p6)
    return self


def _build8(p0: Any, p1: Any, p2: Any, p3: Any, p4: Any, p5: Any, p6: Any, p7: Any) -> Any:
    self = _new(_cls)
    _set0(self, p0)
    _set1(self, p1)
    _set2(self, p2)
    _set3(self, p3)
    _set4(self, p4)
    _set5(self, p5)
    _set6(self, p6)
    _set7(self, p7)
    return self


def _build9(p0: Any, p1: Any, p2: Any, p3: Any, p4: Any, p5: Any, p6: Any, p7: Any, p8: Any) -> Any:
    self = _new(_cls)
    _set0(self, p0)
    _set1(self, p1)
    _set2(self, p2)
    _set3(self, p3)
    _set4(self, p4)
    _set5(self, p5)
    _set6(self, p6)
    _set7(self, p7)
    _set8(self, p8)
    return self


BUILDERS: dict[int, CodeType] = {
    0: _build0.__code__,
    1: _build1.__code__,
    2: _build2.__code__,
    3: _build3.__code__,
    4: _build4.__code__,
    5: _build5.__code__,
    6: _build6.__code__,
    7: _build7.__code__,
    8: _build8.__code__,
    9: _build9.__code__,
}
"""The code of a builder by its number of fields."""
