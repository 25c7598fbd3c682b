from .dynamic_modules import DynamicModule, IncrementalClassifier, MultiHeadClassifier, MultiTaskModule
