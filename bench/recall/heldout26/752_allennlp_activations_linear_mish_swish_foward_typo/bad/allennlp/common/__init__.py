from allennlp.common.registrable import FromParams, Registrable
