import torch
from torch.optim.lr_scheduler import StepLR
from torch.utils.data import DataLoader
from transformers import AutoModelForCausalLM, AutoTokenizer, default_data_collator

from configs import TrainConfig
from utils.dataset import get_preprocessed_samsum
from utils.train_utils import train


def main(**kwargs):
    cfg = TrainConfig(**kwargs)
    torch.manual_seed(42)
    tokenizer = AutoTokenizer.from_pretrained(cfg.model_name)
    tokenizer.pad_token_id = 0
    model = AutoModelForCausalLM.from_pretrained(cfg.model_name).to("cuda:0")

    train_set = get_preprocessed_samsum(tokenizer, "train")
    eval_set = get_preprocessed_samsum(tokenizer, "validation")
    train_loader = DataLoader(train_set, batch_size=cfg.batch_size_training, shuffle=True,
                              drop_last=True, collate_fn=default_data_collator)
    eval_loader = DataLoader(eval_set, batch_size=cfg.batch_size_training,
                             collate_fn=default_data_collator)

    optimizer = torch.optim.AdamW(model.parameters(), lr=cfg.lr, weight_decay=0.0)
    scheduler = StepLR(optimizer, step_size=1, gamma=cfg.gamma)
    results = train(model, train_loader, eval_loader, optimizer, scheduler,
                    cfg.gradient_accumulation_steps, cfg)
    print({k: float(v) for k, v in results.items()})
    model.save_pretrained(cfg.output_dir)


if __name__ == "__main__":
    main(use_fp16=True)
