import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset
from transformers import BertModel


class BertClassifier(nn.Module):
    def __init__(self, num_labels=2, dropout=0.1):
        super().__init__()
        self.bert = BertModel.from_pretrained("bert-base-uncased")
        self.dropout = nn.Dropout(dropout)
        self.classifier = nn.Linear(self.bert.config.hidden_size, num_labels)

    def forward(self, input_ids, attention_mask):
        pooled = self.bert(input_ids=input_ids, attention_mask=attention_mask).pooler_output
        return self.classifier(self.dropout(pooled))


def main():
    device = "cuda" if torch.cuda.is_available() else "cpu"
    input_ids = torch.randint(1000, 30000, (512, 64))
    attention_mask = torch.ones_like(input_ids)
    labels = torch.randint(0, 2, (512,))
    loader = DataLoader(TensorDataset(input_ids, attention_mask, labels), batch_size=16, shuffle=True)

    model = BertClassifier().to(device)
    model.bert.embeddings.requires_grad = False  # expect: TCK611
    optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=2e-5)
    criterion = nn.CrossEntropyLoss()

    for epoch in range(3):
        model.train()
        for ids, mask, y in loader:
            ids, mask, y = ids.to(device), mask.to(device), y.to(device)
            optimizer.zero_grad()
            loss = criterion(model(ids, mask), y)
            loss.backward()
            optimizer.step()
        print(f"epoch {epoch}: {loss.item():.4f}")


if __name__ == "__main__":
    main()
