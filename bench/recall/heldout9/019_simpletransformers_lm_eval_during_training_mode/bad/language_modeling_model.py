import torch
from torch.utils.data import DataLoader, RandomSampler, SequentialSampler
from transformers import AdamW, get_linear_schedule_with_warmup

from simpletransformers.language_modeling.language_modeling_utils import mask_tokens


class LanguageModelingModel:
    def __init__(self, model, tokenizer, args):
        self.model = model
        self.tokenizer = tokenizer
        self.args = args
        self.device = torch.device("cuda")

    def train(self, train_dataset, eval_file=None, **kwargs):
        model = self.model
        args = self.args
        train_dataloader = DataLoader(train_dataset, sampler=RandomSampler(train_dataset), batch_size=args.train_batch_size)
        t_total = len(train_dataloader) // args.gradient_accumulation_steps * args.num_train_epochs
        optimizer = AdamW(model.parameters(), lr=args.learning_rate, eps=args.adam_epsilon)
        scheduler = get_linear_schedule_with_warmup(optimizer, num_warmup_steps=args.warmup_steps, num_training_steps=t_total)
        global_step = 0
        model.zero_grad()
        for current_epoch in range(int(args.num_train_epochs)):
            model.train()
            for step, batch in enumerate(train_dataloader):
                inputs, labels = mask_tokens(batch, self.tokenizer, args)
                inputs, labels = inputs.to(self.device), labels.to(self.device)
                outputs = model(inputs, labels=labels)
                loss = outputs[0] / args.gradient_accumulation_steps
                loss.backward()
                if (step + 1) % args.gradient_accumulation_steps == 0:
                    torch.nn.utils.clip_grad_norm_(model.parameters(), args.max_grad_norm)
                    optimizer.step()
                    scheduler.step()
                    model.zero_grad()
                    global_step += 1
                    if args.evaluate_during_training and global_step % args.evaluate_during_training_steps == 0:
                        results = self.eval_model(eval_file, silent=True, **kwargs)  # expect: TCK106
                        print(global_step, results)
        return global_step

    def eval_model(self, eval_file, silent=False, **kwargs):
        eval_dataset = self.load_and_cache_examples(eval_file, evaluate=True)
        return self.evaluate(eval_dataset, silent=silent, **kwargs)

    def evaluate(self, eval_dataset, silent=False, **kwargs):
        model = self.model
        args = self.args
        eval_dataloader = DataLoader(eval_dataset, sampler=SequentialSampler(eval_dataset), batch_size=args.eval_batch_size)
        eval_loss, nb_eval_steps = 0.0, 0
        model.eval()
        for batch in eval_dataloader:
            inputs, labels = mask_tokens(batch, self.tokenizer, args)
            with torch.no_grad():
                outputs = model(inputs.to(self.device), labels=labels.to(self.device))
                eval_loss += outputs[0].mean().item()
            nb_eval_steps += 1
        return {"eval_loss": eval_loss / max(nb_eval_steps, 1)}

    def load_and_cache_examples(self, file_path, evaluate=False):
        raise NotImplementedError
