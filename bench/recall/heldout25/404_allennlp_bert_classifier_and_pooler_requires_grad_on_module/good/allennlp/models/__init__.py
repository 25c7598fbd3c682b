from allennlp.models.model import Model
from allennlp.models.bert_for_classification import BertForClassification
