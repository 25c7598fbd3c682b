import argparse
import json
from collections import defaultdict

import torch
from torch.utils.data import DataLoader
from transformers import AutoModelForSequenceClassification, AutoTokenizer

from ranking import RankingDataCollator, RewardMetrics, ToyRankingDataset


def batch_inference(inputs, model):
    batch, cu_lens = inputs
    batch = {k: v.to(model.device) for k, v in batch.items()}
    logits = model(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"]).logits  # expect: TCK113
    logits = logits.detach().float().cpu().numpy().reshape(-1)
    return logits, cu_lens


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", type=str, required=True)
    parser.add_argument("--metrics", type=str, default="accuracy")
    parser.add_argument("--batch_size", type=int, default=8)
    parser.add_argument("--device", type=str, default="cuda")
    args = parser.parse_args()

    device = torch.device(args.device if torch.cuda.is_available() else "cpu")
    tokenizer = AutoTokenizer.from_pretrained(args.model)
    model = AutoModelForSequenceClassification.from_pretrained(args.model)
    model.eval()
    model.to(device)

    dataloader = DataLoader(ToyRankingDataset(), collate_fn=RankingDataCollator(tokenizer),
                            batch_size=args.batch_size, num_workers=2)
    metrics = args.metrics.split(",")
    compute_metrics = RewardMetrics(metrics)
    score_dict = defaultdict(float)
    for i, data in enumerate(dataloader):
        logits, cu_lens = batch_inference(data, model)
        results = compute_metrics(logits, cu_lens)
        for metric in metrics:
            score_dict[metric] += results.get(metric)
    score_dict = {k: round(v / len(dataloader), 3) for k, v in score_dict.items()}
    print("RESULTS", score_dict)
    with open(f"rm-eval-{args.model.split('/')[-1]}-results.json", "w") as f:
        json.dump({"model": args.model, **score_dict}, f)


if __name__ == "__main__":
    main()
