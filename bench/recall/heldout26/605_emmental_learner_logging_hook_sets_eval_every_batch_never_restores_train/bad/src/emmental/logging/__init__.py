from emmental.logging.logging_manager import LoggingManager

__all__ = ["LoggingManager"]
