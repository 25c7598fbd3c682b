from .learners import BaseLearner
