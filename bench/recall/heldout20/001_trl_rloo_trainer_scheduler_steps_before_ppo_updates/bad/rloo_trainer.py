import math
import time

import numpy as np
import torch
from accelerate import Accelerator
from torch.utils.data import DataLoader
from transformers import DataCollatorWithPadding, GenerationConfig, Trainer

from utils import batch_generation, first_true_indices, forward, get_reward, log_softmax_gather, truncate_response

INVALID_LOGPROB = 1.0


class RLOOTrainer(Trainer):
    """REINFORCE leave-one-out trainer: k completions per prompt, the other k-1 as baseline."""

    def __init__(self, config, tokenizer, policy, ref_policy, reward_model, train_dataset):
        self.args = args = config
        self.tokenizer = tokenizer
        self.policy = policy
        self.ref_policy = ref_policy
        self.reward_model = reward_model
        self.train_dataset = train_dataset
        self.train_dataset_len = len(train_dataset)

        accelerator = Accelerator(gradient_accumulation_steps=args.gradient_accumulation_steps)
        self.accelerator = accelerator
        args.local_batch_size = args.per_device_train_batch_size * args.gradient_accumulation_steps * args.num_mini_batches
        args.local_mini_batch_size = args.local_batch_size // args.num_mini_batches
        args.num_total_batches = math.ceil(args.total_episodes / (args.local_batch_size * accelerator.num_processes))

        for module in (policy, ref_policy, reward_model):
            module.config.dropout = 0.0
        self.model = policy
        self.create_optimizer_and_scheduler(num_training_steps=args.num_total_batches)

        self.dataloader = DataLoader(
            train_dataset,
            batch_size=args.local_batch_size // args.rloo_k,
            shuffle=True,
            collate_fn=DataCollatorWithPadding(tokenizer),
            drop_last=True,
        )
        self.model, self.optimizer, self.dataloader = accelerator.prepare(self.model, self.optimizer, self.dataloader)
        self.ref_policy = self.ref_policy.to(accelerator.device)
        self.reward_model = self.reward_model.to(accelerator.device)

    def train(self):
        args = self.args
        accelerator = self.accelerator
        optimizer = self.optimizer
        model = self.model
        ref_policy = self.ref_policy
        reward_model = self.reward_model
        tokenizer = self.tokenizer
        device = accelerator.device

        def repeat_generator():
            while True:
                yield from self.dataloader

        iter_dataloader = iter(repeat_generator())
        generation_config = GenerationConfig(
            max_new_tokens=args.response_length,
            min_new_tokens=args.response_length,
            temperature=(args.temperature + 1e-7),
            top_k=0.0,
            top_p=1.0,
            do_sample=True,
        )

        start_time = time.time()
        stats_shape = (args.num_ppo_epochs, args.num_mini_batches, args.gradient_accumulation_steps)
        pg_loss_stats = torch.zeros(stats_shape, device=device)
        approxkl_stats = torch.zeros(stats_shape, device=device)
        model.train()
        self.state.global_step = 0
        self.state.episode = 0

        for update in range(1, args.num_total_batches + 1):
            self.state.episode += 1 * args.batch_size
            self.lr_scheduler.step()  # expect: TCK104
            data = next(iter_dataloader)
            with torch.no_grad():
                queries = data["input_ids"].to(device).repeat(args.rloo_k, 1)
                context_length = queries.shape[1]
                query_responses, logitss = batch_generation(
                    accelerator.unwrap_model(model), queries, args.local_rollout_forward_batch_size,
                    tokenizer.pad_token_id, generation_config,
                )
                responses = query_responses[:, context_length:]
                logprobs = log_softmax_gather(logitss, responses)
                ref_output = forward(ref_policy, query_responses, tokenizer.pad_token_id)
                ref_logits = ref_output.logits[:, context_length - 1 : -1] / (args.temperature + 1e-7)
                ref_logprobs = log_softmax_gather(ref_logits, responses)

                postprocessed = truncate_response(args.stop_token_id, tokenizer.pad_token_id, responses)
                scores = get_reward(reward_model, torch.cat((queries, postprocessed), 1),
                                    tokenizer.pad_token_id, context_length)
                sequence_lengths = first_true_indices(postprocessed == tokenizer.pad_token_id) - 1

                response_idxs = torch.arange(responses.shape[1], device=device).repeat(responses.shape[0], 1)
                padding_mask = response_idxs > sequence_lengths.unsqueeze(1)
                logprobs = torch.masked_fill(logprobs, padding_mask, INVALID_LOGPROB)
                ref_logprobs = torch.masked_fill(ref_logprobs, padding_mask, INVALID_LOGPROB)

                kl = logprobs - ref_logprobs
                rlhf_reward = (scores + (-args.kl_coef * kl).sum(1)).reshape(args.rloo_k, -1)
                baseline = (rlhf_reward.sum(0) - rlhf_reward) / (args.rloo_k - 1)
                advantages = (rlhf_reward - baseline).flatten()
                torch.cuda.empty_cache()

            # several epochs of policy updates on the fresh rollouts
            for ppo_epoch_idx in range(args.num_ppo_epochs):
                b_inds = np.random.permutation(args.local_batch_size)
                minibatch_idx = 0
                for mini_batch_start in range(0, args.local_batch_size, args.local_mini_batch_size):
                    mini_batch_inds = b_inds[mini_batch_start : mini_batch_start + args.local_mini_batch_size]
                    gradient_accumulation_idx = 0
                    for micro_batch_start in range(0, args.local_mini_batch_size, args.per_device_train_batch_size):
                        with accelerator.accumulate(model):
                            micro_batch_inds = mini_batch_inds[
                                micro_batch_start : micro_batch_start + args.per_device_train_batch_size
                            ]
                            mb_advantage = advantages[micro_batch_inds]
                            mb_responses = responses[micro_batch_inds]
                            mb_logprobs = logprobs[micro_batch_inds]

                            output = forward(model, query_responses[micro_batch_inds], tokenizer.pad_token_id)
                            logits = output.logits[:, context_length - 1 : -1] / (args.temperature + 1e-7)
                            new_logprobs = log_softmax_gather(logits, mb_responses)
                            new_logprobs = torch.masked_fill(new_logprobs, padding_mask[micro_batch_inds], INVALID_LOGPROB)
                            logprobs_diff = new_logprobs.sum(1) - mb_logprobs.sum(1)
                            ratio = torch.exp(logprobs_diff)
                            pg_losses = -mb_advantage * ratio
                            pg_losses2 = -mb_advantage * torch.clamp(ratio, 1.0 - args.cliprange, 1.0 + args.cliprange)
                            pg_loss = torch.max(pg_losses, pg_losses2).mean()
                            accelerator.backward(pg_loss)
                            optimizer.step()
                            optimizer.zero_grad()
                            with torch.no_grad():
                                pg_loss_stats[ppo_epoch_idx, minibatch_idx, gradient_accumulation_idx] = pg_loss
                                approxkl_stats[ppo_epoch_idx, minibatch_idx, gradient_accumulation_idx] = (
                                    0.5 * (logprobs_diff**2).mean()
                                )
                        gradient_accumulation_idx += 1
                    minibatch_idx += 1

            with torch.no_grad():
                metrics = {
                    "eps": int(self.state.episode / (time.time() - start_time)),
                    "objective/kl": accelerator.gather(kl.sum(1).mean()).mean().item(),
                    "objective/scores": accelerator.gather(scores.mean()).mean().item(),
                    "policy/approxkl_avg": accelerator.gather(approxkl_stats).mean().item(),
                    "loss/policy_avg": accelerator.gather(pg_loss_stats).mean().item(),
                    "lr": self.lr_scheduler.get_last_lr()[0],
                    "episode": self.state.episode,
                }
                self.state.epoch = self.state.episode / self.train_dataset_len
                self.state.global_step += 1
                self.log(metrics)
            del kl, scores
            torch.cuda.empty_cache()
            self.control = self.callback_handler.on_step_end(args, self.state, self.control)
