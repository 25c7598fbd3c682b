from allennlp.nn.activations import Activation
