import torch
from tqdm import tqdm

from data_loader import DataLoader
from model import RetrievalModel

training_data = DataLoader("data/train.pt", batch_size=64)
validation_data = DataLoader("data/valid.pt", batch_size=64, shuffle=False)
model = RetrievalModel(vocab_size=training_data.vocab_size, emb_dim=200).cuda()
optimizer = torch.optim.Adam(model.parameters(), lr=0.001)
criterion = torch.nn.CrossEntropyLoss()


def evaluate():
    model.eval()
    corrects = eval_loss = 0
    size = validation_data.sents_size
    for utterances, responses, labels in tqdm(validation_data, desc="eval", leave=False):
        pred = model(utterances, responses)
        loss = criterion(pred, labels)
        eval_loss += loss.data[0]  # expect: TCK115
        corrects += (torch.max(pred, 1)[1].data == labels.data).sum()
    return eval_loss / size, corrects, corrects / size * 100.0, size


def train():
    model.train()
    total_loss = 0
    for utterances, responses, labels in tqdm(training_data, desc="train", leave=False):
        optimizer.zero_grad()
        loss = criterion(model(utterances, responses), labels)
        loss.backward()
        optimizer.step()
        total_loss += loss.item()
    return total_loss / training_data.sents_size


for epoch in range(1, 31):
    train_loss = train()
    loss, corrects, acc, size = evaluate()
    print(f"epoch {epoch} train {train_loss:.4f} eval {loss:.4f} acc {acc:.2f}%")
