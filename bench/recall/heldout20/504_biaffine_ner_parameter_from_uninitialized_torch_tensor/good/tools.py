import json


def load_schema(path="data/schema.json"):
    try:
        with open(path, encoding="utf-8") as f:
            labels = json.load(f)
    except FileNotFoundError:
        labels = ["PER", "LOC", "ORG"]
    label2id = {label: i + 1 for i, label in enumerate(labels)}
    id2label = {i: label for label, i in label2id.items()}
    return label2id, id2label, len(labels)
