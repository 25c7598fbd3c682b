"""A named registry of subclasses, so that configuration files can pick a class by name."""
from collections import defaultdict
from typing import Callable, ClassVar, DefaultDict, Dict, Optional, Tuple, Type, TypeVar

T = TypeVar("T", bound="Registrable")


class FromParams:
    """Marker base for classes that can be built from a configuration dictionary."""

    @classmethod
    def from_params(cls, params: dict):
        return cls(**params)


class Registrable(FromParams):
    _registry: ClassVar[DefaultDict[type, Dict[str, Tuple[type, Optional[str]]]]] = defaultdict(dict)

    @classmethod
    def register(cls, name: str) -> Callable[[Type[T]], Type[T]]:
        registry = Registrable._registry[cls]

        def add_subclass_to_registry(subclass: Type[T]) -> Type[T]:
            if name in registry:
                raise ValueError(f"Cannot register {name} as {cls.__name__}; name already in use")
            registry[name] = (subclass, None)
            return subclass

        return add_subclass_to_registry

    @classmethod
    def by_name(cls, name: str) -> Callable[..., T]:
        subclass, constructor = Registrable._registry[cls][name]
        return subclass if constructor is None else getattr(subclass, constructor)

    @classmethod
    def list_available(cls):
        return list(Registrable._registry[cls].keys())
