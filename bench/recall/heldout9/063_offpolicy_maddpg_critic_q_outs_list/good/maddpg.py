import torch
import torch.nn as nn

from offpolicy.algorithms.utils.mlp import MLPBase
from offpolicy.algorithms.utils.util import init, to_torch


class MADDPG_Critic(nn.Module):
    def __init__(self, args, central_obs_dim, central_act_dim, device, num_q_outs=1):
        super(MADDPG_Critic, self).__init__()
        self._use_orthogonal = args.use_orthogonal
        self.hidden_size = args.hidden_size
        self.tpdv = dict(dtype=torch.float32, device=device)
        self.mlp = MLPBase(args, central_obs_dim + central_act_dim)

        init_method = [nn.init.xavier_uniform_, nn.init.orthogonal_][self._use_orthogonal]

        def init_(m):
            return init(m, init_method, lambda x: nn.init.constant_(x, 0))

        self.q_outs = nn.ModuleList([init_(nn.Linear(self.hidden_size, 1)) for _ in range(num_q_outs)])
        self.to(device)

    def forward(self, central_obs, central_act):
        central_obs = to_torch(central_obs).to(**self.tpdv)
        central_act = to_torch(central_act).to(**self.tpdv)
        x = self.mlp(torch.cat([central_obs, central_act], dim=1))
        return [q_out(x) for q_out in self.q_outs]
