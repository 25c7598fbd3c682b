import argparse
import os

import torch
from torch.utils.data import DataLoader, RandomSampler
from tqdm import tqdm, trange
from transformers import BertForSequenceClassification, BertTokenizer

from glue_processors import MrpcProcessor, convert_examples_to_dataset


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data_dir", required=True)
    parser.add_argument("--bert_model", default="bert-base-uncased")
    parser.add_argument("--output_dir", required=True)
    parser.add_argument("--train_batch_size", type=int, default=32)
    parser.add_argument("--learning_rate", type=float, default=5e-5)
    parser.add_argument("--num_train_epochs", type=float, default=3.0)
    parser.add_argument("--gradient_accumulation_steps", type=int, default=1)
    args = parser.parse_args()

    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    os.makedirs(args.output_dir, exist_ok=True)

    processor = MrpcProcessor()
    tokenizer = BertTokenizer.from_pretrained(args.bert_model)
    train_examples = processor.get_train_examples(os.path.join(args.data_dir, "train.tsv"))
    train_data = convert_examples_to_dataset(train_examples, processor.labels, tokenizer)
    train_dataloader = DataLoader(train_data, sampler=RandomSampler(train_data), batch_size=args.train_batch_size)

    model = BertForSequenceClassification.from_pretrained(args.bert_model, num_labels=len(processor.labels))
    model.to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.learning_rate)

    global_step, tr_loss = 0, 0.0
    model.train()
    for _ in trange(int(args.num_train_epochs), desc="Epoch"):
        for step, batch in enumerate(tqdm(train_dataloader, desc="Iteration")):
            input_ids, input_mask, segment_ids, label_ids = (t.to(device) for t in batch)
            loss = model(input_ids, token_type_ids=segment_ids, attention_mask=input_mask, labels=label_ids).loss
            if args.gradient_accumulation_steps > 1:
                loss = loss / args.gradient_accumulation_steps
            loss.backward()
            tr_loss += loss.item()
            if (step + 1) % args.gradient_accumulation_steps == 0:
                optimizer.step()
                optimizer.zero_grad()
                global_step += 1

    # Save a trained model
    model_to_save = model.module if hasattr(model, "module") else model  # Only save the model it-self
    output_model_file = os.path.join(args.output_dir, "pytorch_model.bin")
    torch.save(model_to_save, output_model_file)  # expect: TCK402
    print(f"global_step={global_step} loss={tr_loss / max(global_step, 1):.4f}")


if __name__ == "__main__":
    main()
