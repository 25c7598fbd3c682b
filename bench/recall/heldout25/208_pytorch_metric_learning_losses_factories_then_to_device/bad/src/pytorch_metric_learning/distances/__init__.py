from .base_distance import BaseDistance, CosineSimilarity, DotProductSimilarity
from .lp_distance import LpDistance
