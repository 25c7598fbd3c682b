from .models import LaserLstmEncoder, SentenceEncoder

__all__ = ["LaserLstmEncoder", "SentenceEncoder"]
