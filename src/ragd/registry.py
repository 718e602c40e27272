"""One registry for every plug-in kind: register by name, look up by name.

Embedders, loaders (by file suffix), stores (by URL scheme), chunkers, fusion
methods, citation schemes, evidence validators, rerankers and context formats each
have one :class:`Registry`. A new plug-in is a new module
that calls ``register``; a profile names it; nothing else changes. Looking up
an unknown name raises :class:`~ragd.errors.ConfigError` listing the known ones.
"""

from __future__ import annotations

from typing import Callable, Generic, Iterator, TypeVar

from .errors import ConfigError

T = TypeVar("T")


class Registry(Generic[T]):
    """Named plug-ins of one kind (``kind`` is how errors call them, e.g. "chunker")."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self._items: dict[str, T] = {}

    def register(self, name: str, item: T | None = None, *, replace: bool = False
                 ) -> T | Callable[[T], T]:
        """Register ``item`` as ``name`` (or decorate: ``@registry.register("name")``).

        Registering a taken name is an error unless ``replace`` is true, so two
        plug-ins cannot silently shadow each other.
        """
        if not isinstance(name, str) or not name.strip() or name != name.strip():
            raise ConfigError(f"a {self.kind} name is a non-empty string without surrounding "
                              f"spaces, got {name!r}")

        def add(obj: T) -> T:
            if name in self._items and not replace and self._items[name] is not obj:
                raise ConfigError(f"a {self.kind} named {name!r} is already registered")
            self._items[name] = obj
            return obj

        return add if item is None else add(item)

    def unregister(self, name: str) -> None:
        self._items.pop(name, None)

    def get(self, name: str, *, where: str = "") -> T:
        """The plug-in registered as ``name``; ConfigError naming the known ones otherwise."""
        try:
            return self._items[name]
        except (KeyError, TypeError):
            prefix = f"{where}: " if where else ""
            raise ConfigError(f"{prefix}unknown {self.kind} {name!r}; known: "
                              f"{', '.join(self.names()) or '(none)'}") from None

    def names(self) -> tuple[str, ...]:
        return tuple(sorted(self._items))

    def __contains__(self, name: object) -> bool:
        return name in self._items

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())
