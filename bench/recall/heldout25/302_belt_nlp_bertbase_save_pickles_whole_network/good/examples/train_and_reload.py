"""Fine-tune a pooled BERT classifier on long reviews, save it, and reload it for prediction."""
import pandas as pd

from belt_nlp.bert_classifier_with_pooling import BertClassifierWithPooling

MODEL_DIR = "models/imdb_pooling"


def main():
    train = pd.read_csv("data/imdb_train.csv")
    test = pd.read_csv("data/imdb_test.csv")
    classifier = BertClassifierWithPooling(batch_size=2, learning_rate=5e-6, epochs=3, many_gpus=True,
                                           device="cuda")
    classifier.fit(train["text"].tolist(), train["label"].tolist())
    classifier.save(MODEL_DIR)

    reloaded = BertClassifierWithPooling.load(MODEL_DIR, device="cuda")
    print(type(reloaded.neural_network).__name__, reloaded._params)


if __name__ == "__main__":
    main()
