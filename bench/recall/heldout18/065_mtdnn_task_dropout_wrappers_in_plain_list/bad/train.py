import torch
import torch.nn.functional as F

from matcher import SANBertNetwork


def evaluate(model, batches, task_id):
    model.eval()
    correct = total = 0
    with torch.no_grad():
        for input_ids, segment_ids, mask, labels in batches:
            logits = model(input_ids, segment_ids, mask, task_id)
            correct += (logits.argmax(-1) == labels).sum().item()
            total += labels.numel()
    model.train()
    return correct / max(total, 1)


def main(epochs=2):
    opt = {"init_checkpoint": "bert-base-uncased", "label_size": [3, 2], "tasks_dropout_p": [0.1, 0.3]}
    model = SANBertNetwork(opt)
    optimizer = torch.optim.AdamW(model.parameters(), lr=5e-5)

    def fake_batch(n_labels):
        ids = torch.randint(1000, 5000, (8, 64))
        return ids, torch.zeros_like(ids), torch.ones_like(ids), torch.randint(0, n_labels, (8,))

    tasks = [[fake_batch(3) for _ in range(20)], [fake_batch(2) for _ in range(20)]]
    for epoch in range(epochs):
        model.train()
        for task_id, batches in enumerate(tasks):
            for input_ids, segment_ids, mask, labels in batches:
                loss = F.cross_entropy(model(input_ids, segment_ids, mask, task_id), labels)
                optimizer.zero_grad()
                loss.backward()
                torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                optimizer.step()
        print(epoch, [evaluate(model, batches, task_id) for task_id, batches in enumerate(tasks)])


if __name__ == "__main__":
    main()
