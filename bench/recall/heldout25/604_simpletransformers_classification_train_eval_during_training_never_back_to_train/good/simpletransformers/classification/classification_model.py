import logging
import math
import os

import numpy as np
import pandas as pd
import torch
from tensorboardX import SummaryWriter
from torch.utils.data import DataLoader, RandomSampler, SequentialSampler
from tqdm.auto import tqdm, trange
from transformers import AdamW, AutoConfig, AutoModelForSequenceClassification, AutoTokenizer
from transformers import get_linear_schedule_with_warmup

from simpletransformers.classification.classification_utils import InputExample, build_dataset, compute_metrics
from simpletransformers.config.model_args import ClassificationArgs

logger = logging.getLogger(__name__)


class ClassificationModel:
    def __init__(self, model_name, num_labels=2, args=None, use_cuda=True):
        self.args = ClassificationArgs()
        if args:
            self.args.update_from_dict(args)
        self.num_labels = num_labels
        self.device = torch.device("cuda") if use_cuda and torch.cuda.is_available() else torch.device("cpu")
        config = AutoConfig.from_pretrained(model_name, num_labels=num_labels)
        self.model = AutoModelForSequenceClassification.from_pretrained(model_name, config=config)
        self.tokenizer = AutoTokenizer.from_pretrained(model_name)
        self.results = {}

    def train_model(self, train_df, output_dir=None, show_running_loss=True, eval_df=None, verbose=True, **kwargs):
        if self.args.evaluate_during_training and eval_df is None:
            raise ValueError("evaluate_during_training is enabled but eval_df is not specified.")
        output_dir = output_dir or self.args.output_dir
        self._move_model_to_device()
        examples = [InputExample(i, text, None, label)
                    for i, (text, label) in enumerate(zip(train_df["text"].astype(str), train_df["labels"]))]
        train_dataset = build_dataset(examples, self.tokenizer, self.args)
        train_dataloader = DataLoader(train_dataset, sampler=RandomSampler(train_dataset),
                                      batch_size=self.args.train_batch_size)
        os.makedirs(output_dir, exist_ok=True)
        global_step, tr_loss = self.train(train_dataloader, output_dir, show_running_loss=show_running_loss,
                                          eval_df=eval_df, verbose=verbose, **kwargs)
        self.save_model(model=self.model)
        return global_step, tr_loss

    def train(self, train_dataloader, output_dir, show_running_loss=True, eval_df=None, verbose=True, **kwargs):
        """Trains the model on train_dataset. Utility used by train_model(); not meant to be called directly."""
        model = self.model
        args = self.args

        tb_writer = SummaryWriter(logdir=args.tensorboard_dir)
        t_total = len(train_dataloader) // args.gradient_accumulation_steps * args.num_train_epochs

        no_decay = ["bias", "LayerNorm.weight"]
        optimizer_grouped_parameters = [
            {"params": [p for n, p in model.named_parameters() if not any(nd in n for nd in no_decay)],
             "weight_decay": args.weight_decay},
            {"params": [p for n, p in model.named_parameters() if any(nd in n for nd in no_decay)],
             "weight_decay": 0.0},
        ]
        warmup_steps = math.ceil(t_total * args.warmup_ratio)
        args.warmup_steps = warmup_steps if args.warmup_steps == 0 else args.warmup_steps
        optimizer = AdamW(optimizer_grouped_parameters, lr=args.learning_rate, eps=args.adam_epsilon)
        scheduler = get_linear_schedule_with_warmup(optimizer, num_warmup_steps=args.warmup_steps,
                                                    num_training_steps=t_total)

        if args.n_gpu > 1:
            model = torch.nn.DataParallel(model)

        global_step = 0
        tr_loss, logging_loss = 0.0, 0.0
        model.zero_grad()
        train_iterator = trange(int(args.num_train_epochs), desc="Epoch", disable=args.silent, mininterval=0)
        epoch_number = 0
        best_eval_metric = None
        early_stopping_counter = 0
        current_loss = "Initializing"
        if args.evaluate_during_training:
            training_progress_scores = {"global_step": [], "train_loss": [], "eval_loss": [], "mcc": []}

        if args.fp16:
            from torch.cuda import amp

            scaler = amp.GradScaler()

        for _ in train_iterator:
            model.train()
            train_iterator.set_description(f"Epoch {epoch_number + 1} of {args.num_train_epochs}")
            batch_iterator = tqdm(train_dataloader, desc=f"Running Epoch {epoch_number} of {args.num_train_epochs}",
                                  disable=args.silent, mininterval=0)
            for step, batch in enumerate(batch_iterator):
                inputs = self._get_inputs_dict(batch)
                if args.fp16:
                    with amp.autocast():
                        loss = model(**inputs)[0]
                else:
                    loss = model(**inputs)[0]
                if args.n_gpu > 1:
                    loss = loss.mean()
                current_loss = loss.item()
                if show_running_loss:
                    batch_iterator.set_description(
                        f"Epochs {epoch_number}/{args.num_train_epochs}. Running Loss: {current_loss:9.4f}")
                if args.gradient_accumulation_steps > 1:
                    loss = loss / args.gradient_accumulation_steps

                if args.fp16:
                    scaler.scale(loss).backward()
                else:
                    loss.backward()
                tr_loss += loss.item()

                if (step + 1) % args.gradient_accumulation_steps == 0:
                    if args.fp16:
                        scaler.unscale_(optimizer)
                    torch.nn.utils.clip_grad_norm_(model.parameters(), args.max_grad_norm)
                    if args.fp16:
                        scaler.step(optimizer)
                        scaler.update()
                    else:
                        optimizer.step()
                    scheduler.step()
                    model.zero_grad()
                    global_step += 1

                    if args.logging_steps > 0 and global_step % args.logging_steps == 0:
                        tb_writer.add_scalar("lr", scheduler.get_last_lr()[0], global_step)
                        tb_writer.add_scalar("loss", (tr_loss - logging_loss) / args.logging_steps, global_step)
                        logging_loss = tr_loss

                    if args.evaluate_during_training and (
                        args.evaluate_during_training_steps > 0
                        and global_step % args.evaluate_during_training_steps == 0
                    ):
                        results, _, _ = self.eval_model(
                            eval_df,
                            verbose=verbose and args.evaluate_during_training_verbose,
                            silent=args.evaluate_during_training_silent,
                            **kwargs,
                        )
                        model.train()
                        for key, value in results.items():
                            tb_writer.add_scalar(f"eval_{key}", value, global_step)
                        training_progress_scores["global_step"].append(global_step)
                        training_progress_scores["train_loss"].append(current_loss)
                        for key in results:
                            training_progress_scores.setdefault(key, []).append(results[key])
                        pd.DataFrame(training_progress_scores).to_csv(
                            os.path.join(args.output_dir, "training_progress_scores.csv"), index=False)

                        if best_eval_metric is None or (
                            best_eval_metric - results[args.early_stopping_metric] > args.early_stopping_delta
                        ):
                            best_eval_metric = results[args.early_stopping_metric]
                            self.save_model(args.best_model_dir, optimizer, scheduler, model=model, results=results)
                            early_stopping_counter = 0
                        elif args.use_early_stopping:
                            if early_stopping_counter < args.early_stopping_patience:
                                early_stopping_counter += 1
                            else:
                                logger.info(f" Patience of {args.early_stopping_patience} steps reached")
                                train_iterator.close()
                                return global_step, tr_loss / global_step

            epoch_number += 1
            output_dir_current = os.path.join(output_dir, f"checkpoint-{global_step}-epoch-{epoch_number}")
            if args.save_model_every_epoch:
                os.makedirs(output_dir_current, exist_ok=True)
                self.save_model(output_dir_current, optimizer, scheduler, model=model)

            if args.evaluate_during_training and args.evaluate_each_epoch:
                results, _, _ = self.eval_model(
                    eval_df,
                    verbose=verbose and args.evaluate_during_training_verbose,
                    silent=args.evaluate_during_training_silent,
                    **kwargs,
                )
                training_progress_scores["global_step"].append(global_step)
                training_progress_scores["train_loss"].append(current_loss)
                for key in results:
                    training_progress_scores.setdefault(key, []).append(results[key])

        return global_step, tr_loss / global_step

    def eval_model(self, eval_df, output_dir=None, verbose=True, silent=False, **kwargs):
        """Evaluates the model on eval_df; saves the results to output_dir."""
        output_dir = output_dir or self.args.output_dir
        self._move_model_to_device()
        result, model_outputs, wrong_preds = self.evaluate(eval_df, output_dir, verbose=verbose, silent=silent,
                                                           **kwargs)
        self.results.update(result)
        if verbose:
            logger.info(self.results)
        return result, model_outputs, wrong_preds

    def evaluate(self, eval_df, output_dir, verbose=True, silent=False, **kwargs):
        """Utility used by eval_model(); not meant to be called directly."""
        model = self.model
        args = self.args
        examples = [InputExample(i, text, None, label)
                    for i, (text, label) in enumerate(zip(eval_df["text"].astype(str), eval_df["labels"]))]
        eval_dataset = build_dataset(examples, self.tokenizer, args)
        os.makedirs(output_dir, exist_ok=True)
        eval_dataloader = DataLoader(eval_dataset, sampler=SequentialSampler(eval_dataset),
                                     batch_size=args.eval_batch_size)
        if args.n_gpu > 1:
            model = torch.nn.DataParallel(model)

        eval_loss = 0.0
        nb_eval_steps = 0
        preds = np.empty((len(eval_dataset), self.num_labels))
        out_label_ids = np.empty(len(eval_dataset))
        model.eval()
        for i, batch in enumerate(tqdm(eval_dataloader, disable=args.silent or silent, desc="Running Evaluation")):
            with torch.no_grad():
                inputs = self._get_inputs_dict(batch)
                tmp_eval_loss, logits = model(**inputs)[:2]
                if args.n_gpu > 1:
                    tmp_eval_loss = tmp_eval_loss.mean()
                eval_loss += tmp_eval_loss.item()
            nb_eval_steps += 1
            start = args.eval_batch_size * i
            preds[start:start + len(logits)] = logits.detach().cpu().numpy()
            out_label_ids[start:start + len(logits)] = inputs["labels"].detach().cpu().numpy()

        eval_loss = eval_loss / nb_eval_steps
        model_outputs = preds
        preds = np.argmax(preds, axis=1)
        result, wrong = compute_metrics(preds, out_label_ids, examples, **kwargs)
        result["eval_loss"] = eval_loss
        with open(os.path.join(output_dir, "eval_results.txt"), "w") as writer:
            for key in sorted(result.keys()):
                writer.write(f"{key} = {result[key]}\n")
        return result, model_outputs, wrong

    def _move_model_to_device(self):
        self.model.to(self.device)

    def _get_inputs_dict(self, batch):
        batch = tuple(t.to(self.device) for t in batch)
        return {"input_ids": batch[0], "attention_mask": batch[1], "labels": batch[3]}

    def save_model(self, output_dir=None, optimizer=None, scheduler=None, model=None, results=None):
        output_dir = output_dir or self.args.output_dir
        os.makedirs(output_dir, exist_ok=True)
        model_to_save = model.module if hasattr(model, "module") else model
        model_to_save.save_pretrained(output_dir)
        self.tokenizer.save_pretrained(output_dir)
        if optimizer and scheduler and self.args.save_optimizer_and_scheduler:
            torch.save(optimizer.state_dict(), os.path.join(output_dir, "optimizer.pt"))
            torch.save(scheduler.state_dict(), os.path.join(output_dir, "scheduler.pt"))
        if results:
            with open(os.path.join(output_dir, "eval_results.txt"), "w") as writer:
                for key in sorted(results.keys()):
                    writer.write(f"{key} = {results[key]}\n")
