import torch
import torch.nn.functional as F


def first_true_indices(bools, dtype=torch.long):
    row_len = bools.size(-1)
    zero_or_index = row_len * (~bools).type(dtype) + torch.arange(row_len, dtype=dtype, device=bools.device)
    return torch.min(zero_or_index, dim=-1).values


def truncate_response(stop_token_id, pad_token_id, responses):
    trunc_idxs = first_true_indices(responses == stop_token_id).unsqueeze(-1)
    new_size = [1] * (len(responses.size()) - 1) + [responses.shape[1]]
    idxs = torch.arange(responses.shape[1], device=responses.device).view(*new_size)
    return torch.masked_fill(responses, idxs > trunc_idxs, pad_token_id)


def forward(model, query_responses, pad_token_id):
    attention_mask = query_responses != pad_token_id
    position_ids = attention_mask.cumsum(1) - attention_mask.long()
    input_ids = torch.masked_fill(query_responses, ~attention_mask, 0)
    return model(input_ids=input_ids, attention_mask=attention_mask, position_ids=position_ids,
                 return_dict=True, output_hidden_states=True)


def get_reward(reward_model, query_responses, pad_token_id, context_length):
    attention_mask = query_responses != pad_token_id
    position_ids = attention_mask.cumsum(1) - attention_mask.long()
    input_ids = torch.masked_fill(query_responses, ~attention_mask, 0)
    backbone = getattr(reward_model, reward_model.base_model_prefix)
    output = backbone(input_ids=input_ids, attention_mask=attention_mask, position_ids=position_ids,
                      return_dict=True, output_hidden_states=True, use_cache=False)
    reward_logits = reward_model.score(output.hidden_states[-1])
    sequence_lengths = first_true_indices(query_responses[:, context_length:] == pad_token_id) - 1 + context_length
    rows = torch.arange(reward_logits.size(0), device=reward_logits.device)
    return reward_logits[rows, sequence_lengths].squeeze(-1)


@torch.no_grad()
def batch_generation(model, queries, local_rollout_forward_batch_size, pad_token_id, generation_config):
    query_responses, logitss = [], []
    context_length = queries.shape[1]
    for i in range(0, queries.shape[0], local_rollout_forward_batch_size):
        query = queries[i : i + local_rollout_forward_batch_size]
        attention_mask = query != pad_token_id
        output = model.generate(
            input_ids=torch.masked_fill(query, ~attention_mask, 0),
            attention_mask=attention_mask,
            generation_config=generation_config,
            return_dict_in_generate=True,
            output_scores=True,
        )
        logits = torch.stack(output.scores, 1)
        query_responses.append(torch.cat((query, output.sequences[:, context_length:]), dim=1))
        logitss.append(logits)
    return torch.cat(query_responses, 0), torch.cat(logitss, 0)


def log_softmax_gather(logits, tokens):
    all_logprob = F.log_softmax(logits, dim=-1)
    return torch.gather(all_logprob, 2, tokens.unsqueeze(-1)).squeeze(-1)
