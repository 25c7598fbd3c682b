from abc import ABC


class BaseOperator(ABC):
    """Common attributes of the tensor operators a converted pipeline is made of."""

    def __init__(self, regression=False, classification=False, transformer=False, **kwargs):
        super().__init__()
        self.regression = regression
        self.classification = classification
        self.transformer = transformer
