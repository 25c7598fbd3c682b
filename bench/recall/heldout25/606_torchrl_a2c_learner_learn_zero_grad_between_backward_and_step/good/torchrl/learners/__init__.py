from .base_learner import BaseLearner
