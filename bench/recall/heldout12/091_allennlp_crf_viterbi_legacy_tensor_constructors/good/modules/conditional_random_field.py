from typing import List, Optional, Tuple

import torch


def viterbi_decode(tag_sequence: torch.Tensor, transition_matrix: torch.Tensor) -> Tuple[List[int], float]:
    sequence_length, num_tags = tag_sequence.size()
    path_scores = [tag_sequence[0, :]]
    path_indices = []
    for timestep in range(1, sequence_length):
        summed = path_scores[timestep - 1].unsqueeze(-1) + transition_matrix
        scores, paths = torch.max(summed, 0)
        path_scores.append(tag_sequence[timestep, :] + scores)
        path_indices.append(paths)
    score, best = torch.max(path_scores[-1], 0)
    path = [int(best)]
    for backward_timestep in reversed(path_indices):
        path.append(int(backward_timestep[path[-1]]))
    path.reverse()
    return path, float(score)


class ConditionalRandomField(torch.nn.Module):
    def __init__(self, num_tags: int, constraints: Optional[List[Tuple[int, int]]] = None,
                 include_start_end_transitions: bool = True) -> None:
        super().__init__()
        self.num_tags = num_tags
        self.transitions = torch.nn.Parameter(torch.empty(num_tags, num_tags))
        if constraints is None:
            constraint_mask = torch.full((num_tags + 2, num_tags + 2), 1.0)
        else:
            constraint_mask = torch.full((num_tags + 2, num_tags + 2), 0.0)
            for i, j in constraints:
                constraint_mask[i, j] = 1.0
        self._constraint_mask = torch.nn.Parameter(constraint_mask, requires_grad=False)
        self.include_start_end_transitions = include_start_end_transitions
        if include_start_end_transitions:
            self.start_transitions = torch.nn.Parameter(torch.empty(num_tags))
            self.end_transitions = torch.nn.Parameter(torch.empty(num_tags))
        self.reset_parameters()

    def reset_parameters(self):
        torch.nn.init.xavier_normal_(self.transitions)
        if self.include_start_end_transitions:
            torch.nn.init.normal_(self.start_transitions)
            torch.nn.init.normal_(self.end_transitions)

    def viterbi_tags(self, logits: torch.Tensor, mask: torch.Tensor) -> List[Tuple[List[int], float]]:
        _, max_seq_length, num_tags = logits.size()
        start_tag, end_tag = num_tags, num_tags + 1
        transitions = torch.full((num_tags + 2, num_tags + 2), -10000.0, device=logits.device)
        mask_block = self._constraint_mask[:num_tags, :num_tags]
        transitions[:num_tags, :num_tags] = (self.transitions * mask_block + -10000.0 * (1 - mask_block)).detach()
        if self.include_start_end_transitions:
            transitions[start_tag, :num_tags] = self.start_transitions.detach()
            transitions[:num_tags, end_tag] = self.end_transitions.detach()

        best_paths = []
        tag_sequence = torch.empty(max_seq_length + 2, num_tags + 2, device=logits.device)
        for prediction, prediction_mask in zip(logits.detach(), mask):
            masked_prediction = prediction[prediction_mask.bool()]
            sequence_length = masked_prediction.shape[0]
            tag_sequence.fill_(-10000.0)
            tag_sequence[0, start_tag] = 0.0
            tag_sequence[1 : sequence_length + 1, :num_tags] = masked_prediction
            tag_sequence[sequence_length + 1, end_tag] = 0.0
            path, score = viterbi_decode(tag_sequence[: sequence_length + 2], transitions)
            best_paths.append((path[1:-1], score))
        return best_paths
