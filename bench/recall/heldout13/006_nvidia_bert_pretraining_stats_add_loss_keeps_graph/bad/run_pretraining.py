import argparse
import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from transformers import BertConfig, BertForPreTraining

from stats import SyncFreeStats


class BertPretrainingCriterion(torch.nn.Module):
    def __init__(self, vocab_size):
        super().__init__()
        self.loss_fn = torch.nn.CrossEntropyLoss(ignore_index=-1)
        self.vocab_size = vocab_size

    def forward(self, prediction_scores, seq_relationship_score, masked_lm_labels, next_sentence_labels):
        masked_lm_loss = self.loss_fn(prediction_scores.view(-1, self.vocab_size), masked_lm_labels.view(-1))
        next_sentence_loss = self.loss_fn(seq_relationship_score.view(-1, 2), next_sentence_labels.view(-1))
        return masked_lm_loss + next_sentence_loss


def take_training_step(args, grad_scaler, model, criterion, batch, stats):
    with torch.autocast("cuda", dtype=torch.float16, enabled=args.fp16):
        outputs = model(input_ids=batch["input_ids"], token_type_ids=batch["token_type_ids"],
                        attention_mask=batch["attention_mask"])
        loss = criterion(outputs.prediction_logits, outputs.seq_relationship_logits, batch["labels"],
                         batch["next_sentence_labels"])
    stats.device_stat("average_loss").add_(loss)  # expect: TCK101
    grad_scaler.scale(loss).backward()


def take_optimizer_step(lr_scheduler, optimizer, grad_scaler, stats):
    grad_scaler.step(optimizer)
    lr_scheduler.step()
    stats.copy_from_device()
    grad_scaler.update()
    optimizer.zero_grad(set_to_none=True)


def fake_batches(n, batch_size, seq_len, vocab_size, device):
    for _ in range(n):
        yield {
            "input_ids": torch.randint(0, vocab_size, (batch_size, seq_len), device=device),
            "token_type_ids": torch.zeros(batch_size, seq_len, dtype=torch.long, device=device),
            "attention_mask": torch.ones(batch_size, seq_len, dtype=torch.long, device=device),
            "labels": torch.randint(0, vocab_size, (batch_size, seq_len), device=device),
            "next_sentence_labels": torch.randint(0, 2, (batch_size,), device=device),
        }


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--fp16", action="store_true")
    parser.add_argument("--max_steps", type=int, default=7038)
    parser.add_argument("--gradient_accumulation_steps", type=int, default=4)
    parser.add_argument("--log_freq", type=int, default=10)
    args = parser.parse_args()

    local_rank = int(os.environ.get("LOCAL_RANK", 0))
    torch.cuda.set_device(local_rank)
    device = torch.device("cuda", local_rank)
    dist.init_process_group(backend="nccl")

    config = BertConfig()
    model = DDP(BertForPreTraining(config).to(device), device_ids=[local_rank])
    criterion = BertPretrainingCriterion(config.vocab_size)
    optimizer = torch.optim.AdamW(model.parameters(), lr=6e-3)
    lr_scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: min(1.0, (s + 1) / 2000))
    grad_scaler = torch.amp.GradScaler("cuda", enabled=args.fp16)

    stats = SyncFreeStats()
    stats.add_stat("model_step")
    stats.add_stat("average_loss", dtype=torch.float32, device_tensor=torch.zeros(1, dtype=torch.float32, device=device))

    model.train()
    total_micro_steps = args.max_steps * args.gradient_accumulation_steps
    for step, batch in enumerate(fake_batches(total_micro_steps, 32, 128, config.vocab_size, device)):
        stats.host_stat("model_step").add_(1)
        accumulating = (step + 1) % args.gradient_accumulation_steps != 0
        if accumulating:
            with model.no_sync():
                take_training_step(args, grad_scaler, model, criterion, batch, stats)
        else:
            take_training_step(args, grad_scaler, model, criterion, batch, stats)
            take_optimizer_step(lr_scheduler, optimizer, grad_scaler, stats)
            optimizer_step = (step + 1) // args.gradient_accumulation_steps
            if optimizer_step % args.log_freq == 0:
                if dist.get_rank() == 0:
                    avg = stats.host_stat_value("average_loss") / (args.log_freq * args.gradient_accumulation_steps)
                    print(f"step {optimizer_step}: average_loss {avg:.4f}")
                stats.device_stat("average_loss").zero_()


if __name__ == "__main__":
    main()
