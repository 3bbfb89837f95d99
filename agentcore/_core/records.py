"""``frozen``: the class ``attrs.frozen(slots=True)`` builds, built at a fifth of the cost.

The event classes and the values inside them are frozen, slotted attrs classes, more than
a hundred of them: attrs writes and compiles an ``__init__``, ``__repr__``, ``__eq__`` and
``__hash__`` for each (about 0.4 ms a class), a third of ``from agentcore import Agent``.
``frozen`` builds the same class from the same definition (the annotations, with
``attrs.field(...)`` for defaults, factories, converters, validators and ``kw_only``):

- ``__attrs_attrs__`` holds real ``attrs.Attribute``s (in a tuple with a property per
  name, as attrs' own), so ``attrs.fields``, ``attrs.evolve``, ``attrs.asdict``,
  ``attrs.has`` and ``attrs.validate`` treat the class as the attrs class it mirrors;
- ``__init__``, ``__eq__`` and ``__hash__`` run the code attrs would write, compiled once
  per shape (which fields are keyword-only, converted, validated, made by a factory; for
  ``__eq__`` and ``__hash__`` only their number) and given each class's field names,
  defaults and helpers; ``__init__`` sets the slots through their descriptors, a fifth
  faster than attrs' ``object.__setattr__``, then runs the validators and
  ``__attrs_post_init__`` as attrs' does;
- ``__repr__`` and the pickling pair are small closures over the field names;
  ``__setattr__``, ``__delattr__``, ``__ne__`` and ``__attrs_props__`` are attrs' very
  objects, taken from a reference class;
- all of it is written on the class's first use (``_Pending``): its first instance, call
  of a method, ``inspect.signature`` or ``attrs.fields``; until then stubs stand in for
  the methods. ``from agentcore import Agent`` makes one of these classes, and a run a few
  dozen of them: writing all of them was a fifth of the import.

Type checkers see ``attrs.frozen`` itself (the modules import ``frozen`` from ``attrs``
under ``TYPE_CHECKING``), so the attrs plugin types every ``__init__``; the tests in
tests/core/test_records.py hold each class to an attrs-built twin of the same fields.
``frozen(kw_only=True)`` is ``attrs.frozen(kw_only=True)``; a private field's parameter
drops its leading underscores, as attrs' does. What attrs offers beyond what these
classes use (base classes other than classes of methods with empty ``__slots__``, names
with two leading underscores, methods written in the class, ``init``/``eq``/``hash``/
``type`` or a ``repr`` function on a field, ``attrs.Converter``s, a converter or
validator on an ``init=False`` field) is refused with a ``TypeError`` when the class is
defined: such a class keeps ``attrs.frozen``.

``NamedTuple`` is ``typing.NamedTuple`` for the processors' states (class statements
only): the same class, its ``__new__`` written out rather than compiled for each class
and its annotations kept as written (``typing`` makes each a ``ForwardRef``).
"""

from __future__ import annotations

import collections
import operator
import reprlib
from collections.abc import Callable, Iterable
from types import CodeType, FunctionType
from typing import Any, TypeVar, overload

import attrs

from .builder_code import BUILDERS

__all__ = ["NamedTuple", "builder", "field_names", "frozen", "tuple_of"]

_C = TypeVar("_C", bound=type[Any])
_T = TypeVar("_T")

_CLASS_VAR_PREFIXES = ("typing.ClassVar", "t.ClassVar", "ClassVar", "typing_extensions.ClassVar")
"""How attrs tells a ``ClassVar`` from a field in a string annotation (it evaluates none)."""


@attrs.frozen(slots=True)
class _Reference:
    """A class attrs builds with the same options: the source of the methods and the
    class properties it shares with every class ``frozen`` builds."""

    field: int


_SHARED = {
    name: method
    for name, method in vars(_Reference).items()
    if name in ("__setattr__", "__delattr__", "__ne__", "__attrs_props__", "__replace__")
}
"""What attrs gives every such class alike (``__replace__``, from Python 3.13, is
``attrs.evolve``)."""
_NOTHING = attrs.NOTHING
_WRITTEN = frozenset(
    {"__init__", "__repr__", "__eq__", "__ne__", "__hash__", "__getstate__", "__setstate__"}
    | {"__setattr__", "__delattr__"}
)
"""The methods ``frozen`` writes."""
_FIELD = type(attrs.field())
_WRAPPERS = {property: "fget", classmethod: "__func__", staticmethod: "__func__"}
_FACTORY: Any = attrs.Factory  # typed as a function by attrs' stubs


@overload
def frozen(cls: _C, /) -> _C: ...
@overload
def frozen(*, kw_only: bool = False, eq: bool = True) -> Callable[[_C], _C]: ...
def frozen(cls: _C | None = None, /, *, kw_only: bool = False, eq: bool = True) -> Any:
    """The class ``attrs.frozen(slots=True, kw_only=kw_only, eq=eq)`` would make of ``cls``
    (see the module docstring); ``TypeError`` for an option it does not mirror."""
    if cls is None:
        return lambda cls: _frozen(cls, kw_only, eq)
    return _frozen(cls, kw_only, eq)


def _frozen(cls: _C, kw_only: bool, eq: bool) -> _C:
    if cls.__bases__ != (object,) and not _plain_base(cls.__bases__):
        raise TypeError(
            f"frozen: {cls.__name__} must not have a base class but plain classes of "
            "methods (empty __slots__, no attrs fields)"
        )
    body = dict(vars(cls))
    own = sorted((_WRITTEN if eq else _WRITTEN - _EQ) & body.keys())
    if own:  # attrs would keep them (auto_detect) and write the others to agree
        raise TypeError(
            f"frozen: {cls.__name__} defines {', '.join(own)}, which this builder does not "
            "mirror: use attrs.frozen(slots=True) for this class"
        )
    specs = _specs(cls, body, kw_only)
    names = tuple(name for name, _, _ in specs)
    for name in (*names, "__dict__", "__weakref__"):
        body.pop(name, None)
    body.update(_SHARED if eq else {k: v for k, v in _SHARED.items() if k not in _EQ})
    if kw_only or not eq:
        body["__attrs_props__"] = _props(kw_only, eq)
    body["__slots__"] = (*names, "__weakref__")
    body["__qualname__"] = cls.__qualname__
    if "__match_args__" not in body:
        body["__match_args__"] = tuple(
            n for n, spec, _ in specs if _init(spec) and not _kw_only(spec, kw_only)
        )
    pending = _Pending(specs, kw_only, eq)
    body["__attrs_attrs__"], body["__signature__"] = pending, _Unwritten(pending)
    body.update(_STUBS if eq else {k: v for k, v in _STUBS.items() if k not in _EQ})
    built: Any = type(cls.__name__, cls.__bases__, body)
    pending.cls = built
    _rebind_class_cells(cls, built)
    return built  # type: ignore[no-any-return]


def _props(kw_only: bool, eq: bool) -> Any:
    """What attrs says of a class made with these options: the shared properties
    (``attrs.ClassProps``, a slotted class) with theirs changed."""
    shared = _SHARED["__attrs_props__"]
    kind = type(shared)
    props = object.__new__(kind)
    for slot in kind.__slots__:
        setattr(props, slot, getattr(shared, slot))
    if kw_only:
        props.kw_only = kind.KeywordOnly.YES
    if not eq:
        props.added_eq, props.hashability = False, kind.Hashability.LEAVE_ALONE
    return props


def _plain_base(bases: tuple[type, ...]) -> bool:
    """Whether ``bases`` are classes of methods only (every class of their MROs with empty
    ``__slots__``, no attrs fields, no metaclass; ``typing.Generic`` is one): attrs takes
    nothing from such bases, so the class ``frozen`` builds on them is the one attrs
    would."""
    return all(
        type(base) is type
        and all(
            vars(k).get("__slots__") == () and "__attrs_attrs__" not in vars(k)
            for k in base.__mro__[:-1]
        )
        for base in bases
    )


def _init(spec: Any) -> bool:
    """Whether a field is a parameter of ``__init__``."""
    return not isinstance(spec, _FIELD) or bool(spec.init)


def _kw_only(spec: Any, kw_only: bool) -> bool:
    """Whether a field is keyword-only: its own ``kw_only``, else the class's."""
    own = spec.kw_only if isinstance(spec, _FIELD) else None
    return kw_only if own is None else bool(own)


_METHODS = ("__init__", "__repr__", "__eq__", "__hash__", "__getstate__", "__setstate__")
_EQ = frozenset({"__eq__", "__ne__", "__hash__"})
"""What ``eq=False`` leaves to the class (or to ``object``)."""
"""The methods written on a class's first use (see ``_Pending``)."""


class _Pending:
    """What ``frozen`` leaves for a class's first use: most classes of a program are never
    made, compared or shown, and writing their methods was half the cost of importing them.

    It stands as the class's ``__attrs_attrs__`` (a descriptor: the first read puts the
    attributes' tuple in its place, for ``attrs.fields`` and its kin) and as
    ``__signature__`` (``inspect.signature`` reads it first: the methods are written then,
    and it is removed). The first call of a stub (``_stub``) writes the methods too."""

    __slots__ = ("_fields", "cls", "eq", "kw_only", "specs")

    def __init__(self, specs: tuple[_Spec, ...], kw_only: bool, eq: bool) -> None:
        self.specs, self.kw_only, self.eq = specs, kw_only, eq
        self._fields: tuple[attrs.Attribute[Any], ...] | None = None
        self.cls: Any = None

    @property
    def fields(self) -> tuple[attrs.Attribute[Any], ...]:
        if self._fields is None:
            self._fields = _attributes(self.specs, self.kw_only)
        return self._fields

    def __get__(self, instance: Any, owner: type[Any] | None = None) -> Any:
        """The class's ``__attrs_attrs__``: its attributes in a tuple with a property per
        name, as attrs' own."""
        names = tuple(a.name for a in self.fields)
        attributes: Any = type(
            f"{self.cls.__name__}Attributes",
            (tuple,),
            {name: property(operator.itemgetter(i)) for i, name in enumerate(names)},
        )(self.fields)
        self.cls.__attrs_attrs__ = attributes
        return attributes

    def write(self) -> None:
        """Put the class's methods in place of the stubs (again, harmlessly, if two threads
        come at once)."""
        cls, fields = self.cls, self.fields
        names = tuple(a.name for a in fields)
        salt = f"{cls.__module__}.{cls.__qualname__}"
        methods = {
            "__init__": _written_init(cls, fields),  # it sets the slots by their descriptors
            "__repr__": _repr(tuple(a.name for a in fields if a.repr)),
            "__getstate__": _getstate(names),
            "__setstate__": _setstate(names),
        }
        if self.eq:
            compared = tuple(a.name for a in fields if a.eq)
            methods["__eq__"] = _compared("__eq__", compared, salt)
            methods["__hash__"] = _compared("__hash__", compared, salt)
        for name, method in methods.items():
            method.__module__ = cls.__module__
            if name != "__init__":
                method.__qualname__ = f"{cls.__qualname__}.{name}"
            setattr(cls, name, method)
        if isinstance(cls.__dict__.get("__signature__"), _Unwritten):
            del cls.__signature__


class _Unwritten:
    """A class's ``__signature__`` until its methods are written: ``inspect.signature``
    reads it first, which writes them and removes it (then ``None``: the signature is the
    written ``__init__``'s)."""

    __slots__ = ("pending",)

    def __init__(self, pending: _Pending) -> None:
        self.pending = pending

    def __get__(self, instance: Any, owner: type[Any] | None = None) -> None:
        self.pending.write()


def _stub(name: str) -> Callable[..., Any]:
    """The method ``name`` of every class until its first use: writes the methods of the
    class that holds it (the first of the instance's MRO with this stub: a subclass's
    ``super()`` reaches its base's), then calls the written one. One for all the classes,
    not a closure per class: the import makes some 3,000 fewer objects."""

    def stub(self: Any, *args: Any, **kwargs: Any) -> Any:
        mro = type(self).__mro__
        for cls in mro:
            if vars(cls).get(name) is stub:
                unwritten = vars(cls).get("__signature__")
                if isinstance(unwritten, _Unwritten):
                    unwritten.pending.write()
                return getattr(cls, name)(self, *args, **kwargs)
        for cls in mro:  # another thread wrote the methods since this stub was looked up
            method = vars(cls).get(name)
            if method is not None and vars(cls).get("__ne__") is _SHARED["__ne__"]:
                return method(self, *args, **kwargs)
        raise TypeError(f"no class of {type(self).__name__} holds a written {name}")

    stub.__name__ = stub.__qualname__ = name
    return stub


_STUBS = {name: _stub(name) for name in _METHODS}


_MIRRORS_ATTRS = hasattr(attrs, "Converter") and "kw_only" in (
    attrs.Attribute.from_counting_attr.__func__.__code__.co_varnames  # type: ignore[attr-defined]
)
"""Whether this attrs is one whose parts ``frozen`` reads (``Attribute.from_counting_attr``
with the class's ``kw_only``, ``Converter``: attrs 26); asked of the functions themselves,
as ``attrs.__version_info__`` would import ``importlib.metadata``."""
if not _MIRRORS_ATTRS:  # pragma: no cover - an older attrs builds the classes itself
    frozen = attrs.frozen


_Spec = tuple[str, Any, Any]
"""A field as the class body gives it: its name, ``attrs.field(...)`` or plain default, and
annotation."""


def _specs(cls: type[Any], body: dict[str, Any], class_kw_only: bool) -> tuple[_Spec, ...]:
    """``cls``'s own annotated fields, in order, checked as attrs would check them; their
    ``attrs.Attribute``s are made on first use (``_attributes``)."""
    specs = []
    had_default = False
    for name, annotation in body.get("__annotations__", {}).items():
        if isinstance(annotation, str) and annotation.startswith(_CLASS_VAR_PREFIXES):
            continue
        spec = body.get(name, _NOTHING)
        if isinstance(spec, _FIELD) or name.startswith("__"):
            _refuse_unmirrored(cls, name, spec if isinstance(spec, _FIELD) else attrs.field())
        default = spec._default if isinstance(spec, _FIELD) else spec
        positional = _init(spec) and not _kw_only(spec, class_kw_only)
        if default is _NOTHING and had_default and positional:
            (field,) = _attributes(((name, spec, annotation),), class_kw_only)
            raise ValueError(
                f"No mandatory attributes allowed after an attribute with a default value "
                f"or factory.  Attribute in question: {field!r}"
            )
        had_default = had_default or (default is not _NOTHING and positional)
        specs.append((name, spec, annotation))
    return tuple(specs)


def _attributes(specs: tuple[_Spec, ...], kw_only: bool) -> tuple[attrs.Attribute[Any], ...]:
    """The ``attrs.Attribute`` of each field, as attrs makes them (a private field's
    parameter named without its leading underscores)."""
    fields = []
    for name, spec, annotation in specs:
        if not isinstance(spec, _FIELD):
            spec = attrs.field(default=spec)
        field = attrs.Attribute.from_counting_attr(name, spec, kw_only, annotation)  # type: ignore[attr-defined]
        if field.alias is None:
            object.__setattr__(field, "alias", name.lstrip("_"))
        fields.append(field)
    return tuple(fields)


def _refuse_unmirrored(cls: type[Any], name: str, spec: Any) -> None:
    """``TypeError`` for an ``attrs.field(...)`` option ``frozen`` does not mirror."""
    unmirrored = (
        name.startswith("__")  # a slot the class's name would mangle
        or (not spec.init and (spec.converter is not None or spec._validator is not None))
        or spec.eq not in (True, False)
        or spec.eq_key is not None
        or spec.repr not in (True, False)
        or spec.hash is not None
        or spec.on_setattr is not None
        or spec.type is not None
        or isinstance(spec.converter, attrs.Converter)
    )
    if unmirrored:
        raise TypeError(
            f"frozen: field {name!r} of {cls.__name__} uses an attrs option this "
            "builder does not mirror: use attrs.frozen(slots=True) for this class"
        )


def _written_init(cls: type[Any], fields: tuple[attrs.Attribute[Any], ...]) -> Callable[..., None]:
    """The ``__init__`` attrs would write, setting each slot by its descriptor: the code of
    its shape (compiled once for all the classes of that shape), with the parameters named
    after the fields and the class's defaults, setters, converters and validators (a field
    with ``init=False`` set to its default or factory's result, or left unset)."""
    shape = (
        *(
            (
                a.init,
                a.kw_only,
                _factory_call(a),
                a.converter is not None,
                a.validator is not None,
                a.init or a.default is not _NOTHING,
            )
            for a in fields
        ),
        getattr(cls, "__attrs_post_init__", None) is not None,
    )
    code = _CODES.get(shape)
    if code is None:
        code = _CODES[shape] = _compile(shape)
    params = [a for a in fields if a.init]
    order = [a for a in params if not a.kw_only] + [a for a in params if a.kw_only]
    globs: dict[str, Any] = {"NOTHING": _NOTHING, "_disabled": attrs.validators.get_disabled}
    for i, a in enumerate(fields):
        default: Any = a.default
        globs[f"_set{i}"] = getattr(cls, a.name).__set__
        globs[f"_convert{i}"], globs[f"_validate{i}"] = a.converter, a.validator
        globs[f"_attribute{i}"], globs[f"_default{i}"] = a, default
        if isinstance(default, _FACTORY):
            globs[f"_factory{i}"] = default.factory
    names = tuple(_alias(a) for a in order)
    init: Any = FunctionType(
        code.replace(
            co_varnames=("self", *names, *code.co_varnames[1 + len(names) :]),
            co_filename=f"<frozen generated init {cls.__module__}.{cls.__qualname__}>",
            co_qualname=f"{cls.__qualname__}.__init__",
        ),
        globs,
        "__init__",
        tuple(_signature_default(a) for a in order if not a.kw_only and a.default is not _NOTHING),
    )
    init.__kwdefaults__ = {
        _alias(a): _signature_default(a) for a in order if a.kw_only and a.default is not _NOTHING
    } or None
    init.__annotations__ = {"return": None}
    for a in params:
        convert: Any = a.converter
        annotation = a.type if convert is None else _first_param_type(convert)
        if annotation is not None:
            init.__annotations__[_alias(a)] = annotation
    return init  # type: ignore[no-any-return]


_CODES: dict[tuple[Any, ...], CodeType] = {}
"""The ``__init__`` code of each shape: per field (in order) whether it is a parameter, is
keyword-only, defaults to a factory's result (``"()"``, or ``"self"`` for one that takes
the instance), converts, validates and is set (a field
with ``init=False`` and no default is not); last, whether the class post-inits. Plain
defaults are the function's, not its code's."""


def _alias(field: attrs.Attribute[Any]) -> str:
    """The parameter of ``field`` (``_attributes`` gives every field one)."""
    return field.alias or field.name


_FACTORY_ARGUMENT = {"()": "", "self": "self"}
"""What a factory of an ``__init__``'s shape is called with."""


def _factory_call(field: attrs.Attribute[Any]) -> str | None:
    """How the field's factory is called (``_FACTORY_ARGUMENT``), ``None`` if it has none."""
    default: Any = field.default
    if not isinstance(default, _FACTORY):
        return None
    return "self" if default.takes_self else "()"


def _is_factory(field: attrs.Attribute[Any]) -> bool:
    return isinstance(field.default, _FACTORY)


def _signature_default(field: attrs.Attribute[Any]) -> Any:
    """A factory's parameter defaults to ``NOTHING`` (then the factory runs), as in attrs."""
    return _NOTHING if _is_factory(field) else field.default


def _compile(shape: tuple[Any, ...]) -> CodeType:
    """Compile the code of an ``__init__`` of ``shape``, its parameters named ``p0``...
    (keyword-only ones after the others) and the field ``i`` set by ``_set{i}``."""
    *flags, post_init = shape
    order = [i for i, f in enumerate(flags) if f[0] and not f[1]]
    order += [i for i, f in enumerate(flags) if f[0] and f[1]]
    param = {i: f"p{n}" for n, i in enumerate(order)}
    body, checks = [], []
    for i, (init, _, factory, converts, validates, sets) in enumerate(flags):
        if not init:  # no converter or validator: refused when the class is defined
            if sets:
                made = f"_factory{i}({_FACTORY_ARGUMENT[factory]})" if factory else f"_default{i}"
                body.append(f"    _set{i}(self, {made})")
            continue
        name = param[i]
        if factory:
            made = f"_factory{i}({_FACTORY_ARGUMENT[factory]})"
            body.append(f"    if {name} is NOTHING:\n        {name} = {made}")
        if converts:
            body.append(f"    {name} = _convert{i}({name})")
        body.append(f"    _set{i}(self, {name})")
        if validates:
            checks.append(f"        _validate{i}(self, _attribute{i}, {name})")
    if checks:
        body += ["    if not _disabled():", *checks]
    if post_init:
        body.append("    self.__attrs_post_init__()")
    positional = [param[i] for i in order if not flags[i][1]]
    keyword = [param[i] for i in order if flags[i][1]]
    params = ", ".join(["self", *positional, *(["*", *keyword] if keyword else [])])
    source = f"def __init__({params}):\n" + ("\n".join(body) or "    pass") + "\n"
    namespace: dict[str, Any] = {}
    exec(compile(source, "<frozen generated init>", "exec"), namespace)
    code: CodeType = namespace["__init__"].__code__
    return code


def _first_param_type(converter: Callable[..., Any]) -> Any:
    """The annotation of a converter's first parameter, which attrs gives its argument."""
    code = getattr(converter, "__code__", None)
    if code is None or code.co_argcount == 0:
        return None
    return getattr(converter, "__annotations__", {}).get(code.co_varnames[0])


def _repr(names: tuple[str, ...]) -> Callable[[Any], str]:
    @reprlib.recursive_repr()  # an instance that holds itself shows as ``...``, as in attrs
    def __repr__(self: Any) -> str:
        shown = ", ".join(f"{name}={getattr(self, name, _NOTHING)!r}" for name in names)
        return f"{self.__class__.__qualname__.rsplit('>.', 1)[-1]}({shown})"

    return __repr__


def _compared(kind: str, names: tuple[str, ...], salt: str) -> Callable[..., Any]:
    """The ``__eq__`` or ``__hash__`` attrs writes (reading the fields as attributes, which
    the interpreter specialises for slots): the code for that many fields, compiled once,
    with the field names put in. ``salt`` (the class's name) sets apart the hashes of equal
    field values of two classes, as attrs' per-class salt does."""
    code = _COMPARED.get((kind, len(names)))
    if code is None:
        code = _COMPARED[kind, len(names)] = _compile_compared(kind, len(names))
    rename = {f"f{i}": name for i, name in enumerate(names)}
    code = code.replace(co_names=tuple(rename.get(n, n) for n in code.co_names))
    return FunctionType(code, {"_salt": salt})


_COMPARED: dict[tuple[str, int], CodeType] = {}


def _compile_compared(kind: str, count: int) -> CodeType:
    mine = "".join(f"self.f{i}, " for i in range(count))
    if kind == "__eq__":
        theirs = "".join(f"other.f{i}, " for i in range(count))
        source = (
            "def __eq__(self, other):\n"
            "    if other.__class__ is not self.__class__:\n"
            "        return NotImplemented\n"
            f"    return ({mine}) == ({theirs})\n"
        )
    else:
        source = f"def __hash__(self):\n    return hash((_salt, {mine}))\n"
    namespace: dict[str, Any] = {}
    exec(compile(source, "<frozen generated comparison>", "exec"), namespace)
    code: CodeType = namespace[kind].__code__
    return code


def _getstate(names: tuple[str, ...]) -> Callable[[Any], dict[str, Any]]:
    def __getstate__(self: Any) -> dict[str, Any]:
        return {name: getattr(self, name) for name in names}

    return __getstate__


def _setstate(names: tuple[str, ...]) -> Callable[[Any, Any], None]:
    def __setstate__(self: Any, state: Any) -> None:
        """A dict from ``__getstate__``, or a tuple of the values in field order (what
        attrs' own ``__setstate__`` takes: attrs before 22.2 pickles, snapshots)."""
        if isinstance(state, tuple):
            for name, value in zip(names, state, strict=False):
                object.__setattr__(self, name, value)
            return
        for name in names:
            if name in state:
                object.__setattr__(self, name, state[name])

    __setstate__.takes_field_tuple = True  # type: ignore[attr-defined]
    return __setstate__


def builder(cls: type[_T]) -> Callable[..., _T]:
    """A function of every field's value, in field order (keyword-only ones too, by
    position), that makes an instance of the slotted class ``cls`` without calling its
    ``__init__``: no default, factory or converter, no check, no ``__attrs_post_init__``.

    For the core's own outputs, whose values it took from inputs that passed their checks
    or built itself (a sum of two ``Usage``s, the text it joined): what it saves is the
    check of what is already known good, two thirds of the cost of a small event. Values
    that come from a caller go through the class itself."""
    names = field_names(cls)
    code = BUILDERS.get(len(names))
    if code is None:
        code = BUILDERS[len(names)] = _compile_builder(len(names))
    globs: dict[str, Any] = {"_new": object.__new__, "_cls": cls}
    for i, name in enumerate(names):
        globs[f"_set{i}"] = getattr(cls, name).__set__
    build: Any = FunctionType(
        code.replace(
            co_varnames=(*names, *code.co_varnames[len(names) :]),
            co_qualname=f"builder({cls.__qualname__})",
        ),
        globs,
        f"build_{cls.__name__}",
    )
    return build  # type: ignore[no-any-return]


def field_names(cls: type[Any]) -> tuple[str, ...]:
    """The names of an attrs class's fields, in order (``attrs.fields``'), read off the
    definition of a class ``frozen`` built: its ``attrs.Attribute``s are not made (about
    60 µs a class, which the module constants that need only names need not pay)."""
    pending = vars(cls).get("__attrs_attrs__")
    if isinstance(pending, _Pending):
        return tuple(name for name, _, _ in pending.specs)
    return tuple(a.name for a in attrs.fields(cls))


def _compile_builder(count: int) -> CodeType:
    params = ", ".join(f"p{i}" for i in range(count))
    sets = "".join(f"    _set{i}(self, p{i})\n" for i in range(count))
    source = f"def build({params}):\n    self = _new(_cls)\n{sets}    return self\n"
    namespace: dict[str, Any] = {}
    exec(compile(source, "<frozen builder>", "exec"), namespace)
    code: CodeType = namespace["build"].__code__
    return code


tuple_of: Callable[[type[_T], Iterable[Any]], _T] = tuple.__new__  # type: ignore[assignment]
"""``tuple_of(cls, values)``: the named tuple ``cls`` holding ``values`` (all its fields, in
order), without the Python frame of its ``__new__``: for the processors' states, which are
rebuilt on every input."""


def _rebind_class_cells(old: type[Any], new: type[Any]) -> None:
    """Point the ``__class__`` cells of ``old``'s methods (``super()``) at the rebuilt class,
    as attrs does for the classes it rebuilds with slots."""
    for item in vars(old).values():
        kind = type(item)
        if kind in _WRAPPERS:
            item = getattr(item, _WRAPPERS[kind])
        elif kind is not FunctionType:
            continue
        code = item.__code__
        if "__class__" in code.co_freevars:
            cell = item.__closure__[code.co_freevars.index("__class__")]
            if cell.cell_contents is old:
                cell.cell_contents = new


def _named_tuple_new(count: int) -> CodeType:
    """The code of a named tuple's ``__new__`` of ``count`` fields (parameters ``p0``...),
    compiled once per count beyond the ones written out (``collections.namedtuple``
    compiles one per class)."""
    code = _NEW_CODES.get(count)
    if code is None:
        params = ", ".join(f"p{i}" for i in range(count))
        namespace: dict[str, Any] = {}
        exec(
            compile(f"new = lambda _cls, {params}: _tuple_new(_cls, ({params}))", "", "exec"),
            namespace,
        )
        code = _NEW_CODES[count] = namespace["new"].__code__
    return code


_tuple_new = tuple.__new__
_NEW_CODES: dict[int, CodeType] = {
    len(new.__code__.co_varnames) - 1: new.__code__
    for new in (  # written out, so that the import compiles none (they are in the .pyc)
        lambda _cls: _tuple_new(_cls, ()),
        lambda _cls, p0: _tuple_new(_cls, (p0,)),
        lambda _cls, p0, p1: _tuple_new(_cls, (p0, p1)),
        lambda _cls, p0, p1, p2: _tuple_new(_cls, (p0, p1, p2)),
        lambda _cls, p0, p1, p2, p3: _tuple_new(_cls, (p0, p1, p2, p3)),
        lambda _cls, p0, p1, p2, p3, p4: _tuple_new(_cls, (p0, p1, p2, p3, p4)),
        lambda _cls, p0, p1, p2, p3, p4, p5: _tuple_new(_cls, (p0, p1, p2, p3, p4, p5)),
        lambda _cls, p0, p1, p2, p3, p4, p5, p6: _tuple_new(_cls, (p0, p1, p2, p3, p4, p5, p6)),
        lambda _cls, p0, p1, p2, p3, p4, p5, p6, p7: _tuple_new(
            _cls, (p0, p1, p2, p3, p4, p5, p6, p7)
        ),
    )
}


def _named_tuple(
    typename: str, names: tuple[str, ...], defaults: tuple[Any, ...], module: str
) -> type[tuple[Any, ...]]:
    """The class ``collections.namedtuple(typename, names, defaults=defaults,
    module=module)`` makes, its ``__new__`` made of code compiled once per field count."""
    for name in names:
        if name.startswith("_"):
            raise ValueError(f"Field names cannot start with an underscore: {name!r}")
    count = len(names)
    arg_list = ", ".join(names) + ("," if count == 1 else "")
    code = _named_tuple_new(count)
    new: Any = FunctionType(
        code.replace(co_varnames=("_cls", *names)),
        {"_tuple_new": tuple.__new__, "__builtins__": {}},
        "__new__",
        defaults or None,
    )
    new.__doc__ = f"Create new instance of {typename}({arg_list})"
    tuple_new, _len = tuple.__new__, len

    def _make(cls: Any, iterable: Iterable[Any]) -> Any:
        result = tuple_new(cls, iterable)
        if _len(result) != count:
            raise TypeError(f"Expected {count} arguments, got {len(result)}")
        return result

    _make.__doc__ = f"Make a new {typename} object from a sequence or iterable"

    def _replace(self: Any, /, **kwds: Any) -> Any:
        result = self._make(map(kwds.pop, names, self))
        if kwds:
            raise ValueError(f"Got unexpected field names: {list(kwds)!r}")
        return result

    _replace.__doc__ = f"Return a new {typename} object replacing specified fields with new values"
    repr_fmt = "(" + ", ".join(f"{name}=%r" for name in names) + ")"

    def __repr__(self: Any) -> str:
        "Return a nicely formatted representation string"
        return str(self.__class__.__name__ + repr_fmt % self)

    def _asdict(self: Any) -> dict[str, Any]:
        "Return a new dict which maps field names to their values."
        return dict(zip(self._fields, self, strict=False))

    def __getnewargs__(self: Any) -> tuple[Any, ...]:
        "Return self as a plain tuple.  Used by copy and pickle."
        return tuple(self)

    for method in (new, _make, _replace, __repr__, _asdict, __getnewargs__):
        method.__qualname__ = f"{typename}.{method.__name__}"
    body: dict[str, Any] = {
        "__doc__": f"{typename}({arg_list})",
        "__slots__": (),
        "_fields": names,
        "_field_defaults": dict(zip(names[count - len(defaults) :], defaults, strict=True)),
        "__new__": new,
        "_make": classmethod(_make),
        "_replace": _replace,
        "__repr__": __repr__,
        "_asdict": _asdict,
        "__getnewargs__": __getnewargs__,
        "__match_args__": names,
    }
    for index, name in enumerate(names):
        body[name] = _TUPLE_GETTER(index, f"Alias for field number {index}")
    built = type(typename, (tuple,), body)
    built.__module__ = module
    return built


_TUPLE_GETTER: Any = vars(collections)["_tuplegetter"]
"""The field descriptor ``collections.namedtuple`` uses (C)."""
_NAMED_TUPLE_SPECIAL = frozenset({"__module__", "__name__", "__annotations__"})
_NAMED_TUPLE_PROHIBITED = frozenset(
    {"__new__", "__init__", "__slots__", "__getnewargs__", "_fields", "_field_defaults"}
    | {"_make", "_replace", "_asdict", "_source"}
)


class _NamedTupleMeta(type):
    """What ``typing.NamedTuple``'s metaclass does with a class statement, the class made
    by ``_named_tuple``; the annotations kept as written (``typing`` compiles each string
    into a ``ForwardRef``)."""

    def __new__(mcls, typename: str, bases: tuple[type, ...], ns: dict[str, Any]) -> Any:
        if bases != (_NamedTupleBase,):
            raise TypeError("can only inherit from a NamedTuple type")
        types = ns.get("__annotations__", {})
        default_names: list[str] = []
        for name in types:
            if name in ns:
                default_names.append(name)
            elif default_names:
                raise TypeError(
                    f"Non-default namedtuple field {name} cannot follow default "
                    f"field{'s' if len(default_names) > 1 else ''} {', '.join(default_names)}"
                )
        defaults = tuple(ns[name] for name in default_names)
        built: Any = _named_tuple(typename, tuple(types), defaults, ns["__module__"])
        built.__annotations__ = built.__new__.__annotations__ = dict(types)
        for key, value in ns.items():
            if key in _NAMED_TUPLE_PROHIBITED:
                raise AttributeError("Cannot overwrite NamedTuple attribute " + key)
            if key not in _NAMED_TUPLE_SPECIAL and key not in built._fields:
                setattr(built, key, value)
        return built


_NamedTupleBase = type.__new__(_NamedTupleMeta, "NamedTuple", (), {})


def _named_tuple_entries(bases: tuple[Any, ...]) -> tuple[type, ...]:
    return (_NamedTupleBase,)


def NamedTuple(typename: str, fields: Any = None, /) -> Any:
    """``typing.NamedTuple`` for class statements (``class State(NamedTuple): ...``),
    at a fifth of its cost: the same class (``tests/core/test_records.py`` holds it to
    typing's), its ``__new__`` not compiled for each class. Type checkers see
    ``typing.NamedTuple`` (import it under ``TYPE_CHECKING``)."""
    raise TypeError("records.NamedTuple is for class statements: use typing.NamedTuple")


NamedTuple.__mro_entries__ = _named_tuple_entries  # type: ignore[attr-defined]
