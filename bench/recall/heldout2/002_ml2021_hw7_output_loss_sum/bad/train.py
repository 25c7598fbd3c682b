import torch
from torch.utils.data import DataLoader
from transformers import BertForQuestionAnswering

from data import QA_Dataset, train_questions, train_tokenized

model = BertForQuestionAnswering.from_pretrained("bert-base-chinese").to("cuda")
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
train_loader = DataLoader(QA_Dataset("train", train_questions, train_tokenized), batch_size=16, shuffle=True)

model.train()
for epoch in range(1):
    step = 1
    train_loss = train_acc = 0
    for data in train_loader:
        data = [i.to("cuda") for i in data]
        output = model(input_ids=data[0], token_type_ids=data[1], attention_mask=data[2], start_positions=data[3], end_positions=data[4])
        start_index = torch.argmax(output.start_logits, dim=1)
        end_index = torch.argmax(output.end_logits, dim=1)
        train_acc += ((start_index == data[3]) & (end_index == data[4])).float().mean()
        train_loss += output.loss  # expect: TCK101
        output.loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        step += 1
        if step % 100 == 0:
            print(f"step {step}: loss {float(train_loss) / 100:.3f}")
            train_loss = train_acc = 0
