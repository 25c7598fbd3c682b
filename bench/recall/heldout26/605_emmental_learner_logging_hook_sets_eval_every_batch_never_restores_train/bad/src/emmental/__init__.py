from emmental.meta import Meta, init_config

__all__ = ["Meta", "init_config"]
