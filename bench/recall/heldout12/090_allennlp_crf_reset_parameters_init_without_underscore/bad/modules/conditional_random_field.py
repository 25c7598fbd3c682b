import torch


class ConditionalRandomField(torch.nn.Module):
    def __init__(self, num_tags: int, include_start_end_transitions: bool = True) -> None:
        super().__init__()
        self.num_tags = num_tags
        self.transitions = torch.nn.Parameter(torch.empty(num_tags, num_tags))
        self.include_start_end_transitions = include_start_end_transitions
        if include_start_end_transitions:
            self.start_transitions = torch.nn.Parameter(torch.empty(num_tags))
            self.end_transitions = torch.nn.Parameter(torch.empty(num_tags))
        self.reset_parameters()

    def reset_parameters(self):
        torch.nn.init.xavier_normal(self.transitions)  # expect: TCK917
        if self.include_start_end_transitions:
            torch.nn.init.normal(self.start_transitions)  # expect: TCK917
            torch.nn.init.normal(self.end_transitions)  # expect: TCK917

    def _input_likelihood(self, logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        batch_size, sequence_length, num_tags = logits.size()
        mask = mask.float().transpose(0, 1).contiguous()
        logits = logits.transpose(0, 1).contiguous()
        alpha = logits[0]
        if self.include_start_end_transitions:
            alpha = alpha + self.start_transitions.view(1, num_tags)
        for i in range(1, sequence_length):
            inner = alpha.view(batch_size, num_tags, 1) + logits[i].view(batch_size, 1, num_tags) + self.transitions.view(1, num_tags, num_tags)
            alpha = torch.logsumexp(inner, 1) * mask[i].view(batch_size, 1) + alpha * (1 - mask[i]).view(batch_size, 1)
        if self.include_start_end_transitions:
            alpha = alpha + self.end_transitions.view(1, num_tags)
        return torch.logsumexp(alpha, dim=-1)

    def _joint_likelihood(self, logits: torch.Tensor, tags: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        batch_size, sequence_length, _ = logits.shape
        logits = logits.transpose(0, 1).contiguous()
        mask = mask.float().transpose(0, 1).contiguous()
        tags = tags.transpose(0, 1).contiguous()
        score = self.start_transitions.index_select(0, tags[0]) if self.include_start_end_transitions else 0.0
        for i in range(sequence_length - 1):
            current_tag, next_tag = tags[i], tags[i + 1]
            transition_score = self.transitions[current_tag.view(-1), next_tag.view(-1)]
            emit_score = logits[i].gather(1, current_tag.view(batch_size, 1)).squeeze(1)
            score = score + transition_score * mask[i + 1] + emit_score * mask[i]
        last_tag_index = mask.sum(0).long() - 1
        last_tags = tags.gather(0, last_tag_index.view(1, batch_size)).squeeze(0)
        if self.include_start_end_transitions:
            score = score + self.end_transitions.index_select(0, last_tags)
        last_input_score = logits[-1].gather(1, last_tags.view(-1, 1)).squeeze(1)
        return score + last_input_score * mask[-1]

    def forward(self, inputs: torch.Tensor, tags: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        log_denominator = self._input_likelihood(inputs, mask)
        log_numerator = self._joint_likelihood(inputs, tags, mask)
        return torch.sum(log_numerator - log_denominator)
