import torch
from torch.nn.utils.clip_grad import clip_grad_norm_


def main(model, iterator, config_data):
    opt = torch.optim.Adam(model.parameters(), betas=(0.9, 0.999), eps=1e-6, weight_decay=1e-2)

    def _eval_epoch():
        iterator.restart_dataset("eval")
        model.eval()
        cum_acc, nsamples = 0.0, 0
        with torch.no_grad():
            for batch in iterator:
                logits, preds, _ = model(inputs=batch["input_ids"], labels=batch["label_ids"])
                cum_acc += (preds == batch["label_ids"]).float().sum().item()
                nsamples += batch["input_ids"].size(0)
        print("eval accu:", cum_acc / nsamples)

    def _train_epoch():
        iterator.restart_dataset("train")
        model.train()
        for step, batch in enumerate(iterator, start=1):
            logits, preds, loss = model(inputs=batch["input_ids"], labels=batch["label_ids"])
            opt.zero_grad()
            loss.backward()
            clip_grad_norm_(model.parameters(), max_norm=1.0)
            opt.step()
            if step % config_data.eval_steps == 0:
                _eval_epoch()  # expect: TCK106

    for _ in range(config_data.max_train_epoch):
        _train_epoch()
