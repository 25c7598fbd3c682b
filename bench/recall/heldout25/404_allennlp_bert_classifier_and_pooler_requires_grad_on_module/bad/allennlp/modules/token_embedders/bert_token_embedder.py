from typing import Dict

from pytorch_pretrained_bert.modeling import BertModel


class PretrainedBertModel:
    """Caches pretrained BERT models, so several components can share one."""

    _cache: Dict[str, BertModel] = {}

    @classmethod
    def load(cls, model_name: str, cache_model: bool = True) -> BertModel:
        if model_name in cls._cache:
            return cls._cache[model_name]
        model = BertModel.from_pretrained(model_name)
        if cache_model:
            cls._cache[model_name] = model
        return model
