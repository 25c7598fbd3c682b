import torch
import torch.nn as nn
from torch.utils.data import DataLoader, RandomSampler, TensorDataset
from tqdm.auto import tqdm


class TextClassifier(nn.Module):
    def __init__(self, vocab_size=30522, dim=256, num_labels=2):
        super().__init__()
        self.embed = nn.EmbeddingBag(vocab_size, dim)
        self.dropout = nn.Dropout(0.1)
        self.classifier = nn.Linear(dim, num_labels)

    def forward(self, input_ids, labels=None):
        logits = self.classifier(self.dropout(self.embed(input_ids)))
        loss = nn.functional.cross_entropy(logits, labels) if labels is not None else None
        return loss, logits


class ClassificationModel:
    def __init__(self, num_labels=2, args=None):
        self.args = {"train_batch_size": 32, "num_train_epochs": 3, "learning_rate": 4e-5,
                     "max_grad_norm": 1.0, "n_gpu": torch.cuda.device_count()}
        self.args.update(args or {})
        self.device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        self.model = TextClassifier(num_labels=num_labels)

    def train_model(self, input_ids, labels):
        self.model.to(self.device)
        dataset = TensorDataset(input_ids, labels)
        return self.train(dataset)

    def train(self, train_dataset):
        args = self.args
        model = self.model
        train_dataloader = DataLoader(train_dataset, sampler=RandomSampler(train_dataset),
                                      batch_size=args["train_batch_size"])
        optimizer = torch.optim.AdamW(model.parameters(), lr=args["learning_rate"])

        if args["n_gpu"] > 1:
            model = torch.nn.DataParallel(model)  # expect: TCK204

        global_step, tr_loss = 0, 0.0
        model.zero_grad()
        for _ in range(args["num_train_epochs"]):
            model.train()
            for input_ids, labels in tqdm(train_dataloader, desc="Running Epoch"):
                loss, _ = model(input_ids.to(self.device), labels=labels.to(self.device))
                if args["n_gpu"] > 1:
                    loss = loss.mean()
                loss.backward()
                tr_loss += loss.detach()
                torch.nn.utils.clip_grad_norm_(model.parameters(), args["max_grad_norm"])
                optimizer.step()
                model.zero_grad()
                global_step += 1
        return global_step, (tr_loss / max(global_step, 1)).item()


if __name__ == "__main__":
    clf = ClassificationModel()
    print(clf.train_model(torch.randint(0, 30522, (4096, 64)), torch.randint(0, 2, (4096,))))
