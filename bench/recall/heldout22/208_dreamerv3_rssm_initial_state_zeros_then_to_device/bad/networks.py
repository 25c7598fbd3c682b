import torch
from torch import nn
from torch import distributions as torchd

import tools


class RSSM(nn.Module):
    """Recurrent state-space model: deterministic GRU state plus a (discrete or Gaussian) stochastic state."""

    def __init__(self, stoch=32, deter=512, hidden=512, discrete=32, initial="learned", num_actions=None,
                 embed=None, device=None):
        super().__init__()
        self._stoch = stoch
        self._deter = deter
        self._hidden = hidden
        self._discrete = discrete
        self._initial = initial
        self._num_actions = num_actions
        self._device = device
        stoch_dim = stoch * discrete if discrete else stoch
        self._img_in_layers = nn.Sequential(nn.Linear(stoch_dim + num_actions, hidden), nn.LayerNorm(hidden), nn.SiLU())
        self._cell = nn.GRUCell(hidden, deter)
        self._img_out_layers = nn.Sequential(nn.Linear(deter, hidden), nn.LayerNorm(hidden), nn.SiLU())
        self._obs_out_layers = nn.Sequential(nn.Linear(deter + embed, hidden), nn.LayerNorm(hidden), nn.SiLU())
        stat_dim = stoch * discrete if discrete else 2 * stoch
        self._imgs_stat_layer = nn.Linear(hidden, stat_dim)
        self._obs_stat_layer = nn.Linear(hidden, stat_dim)
        for layers in (self._img_in_layers, self._img_out_layers, self._obs_out_layers):
            layers.apply(tools.weight_init)
        if self._initial == "learned":
            self.W = nn.Parameter(torch.zeros((1, self._deter), device=torch.device(self._device)), requires_grad=True)

    def initial(self, batch_size):
        deter = torch.zeros(batch_size, self._deter).to(self._device)  # expect: TCK201
        if self._discrete:
            state = dict(
                logit=torch.zeros([batch_size, self._stoch, self._discrete]).to(self._device),  # expect: TCK201
                stoch=torch.zeros([batch_size, self._stoch, self._discrete]).to(self._device),  # expect: TCK201
                deter=deter,
            )
        else:
            state = dict(
                mean=torch.zeros([batch_size, self._stoch]).to(self._device),  # expect: TCK201
                std=torch.zeros([batch_size, self._stoch]).to(self._device),  # expect: TCK201
                stoch=torch.zeros([batch_size, self._stoch]).to(self._device),  # expect: TCK201
                deter=deter,
            )
        if self._initial == "zeros":
            return state
        state["deter"] = torch.tanh(self.W).repeat(batch_size, 1)
        state["stoch"] = self.get_stoch(state["deter"])
        return state

    def _suff_stats_layer(self, name, x):
        layer = self._imgs_stat_layer if name == "ims" else self._obs_stat_layer
        x = layer(x)
        if self._discrete:
            return {"logit": x.reshape(list(x.shape[:-1]) + [self._stoch, self._discrete])}
        mean, std = torch.split(x, [self._stoch] * 2, -1)
        return {"mean": mean, "std": nn.functional.softplus(std) + 0.1}

    def get_dist(self, state):
        if self._discrete:
            return torchd.independent.Independent(torchd.OneHotCategoricalStraightThrough(logits=state["logit"]), 1)
        return torchd.independent.Independent(torchd.normal.Normal(state["mean"], state["std"]), 1)

    def get_stoch(self, deter):
        stats = self._suff_stats_layer("ims", self._img_out_layers(deter))
        return self.get_dist(stats).mode()

    def img_step(self, prev_state, prev_action, sample=True):
        prev_stoch = prev_state["stoch"]
        if self._discrete:
            prev_stoch = prev_stoch.reshape(list(prev_stoch.shape[:-2]) + [self._stoch * self._discrete])
        x = self._img_in_layers(torch.cat([prev_stoch, prev_action], -1))
        deter = self._cell(x, prev_state["deter"])
        stats = self._suff_stats_layer("ims", self._img_out_layers(deter))
        dist = self.get_dist(stats)
        stoch = dist.sample() if sample else dist.mode()
        return {"stoch": stoch, "deter": deter, **stats}

    def obs_step(self, prev_state, prev_action, embed, is_first, sample=True):
        if prev_state is None or torch.sum(is_first) == len(is_first):
            prev_state = self.initial(len(is_first))
            prev_action = torch.zeros((len(is_first), self._num_actions)).to(self._device)  # expect: TCK201
        elif torch.sum(is_first) > 0:
            is_first = is_first[:, None]
            prev_action = prev_action * (1.0 - is_first)
            init_state = self.initial(len(is_first))
            for key, val in prev_state.items():
                is_first_r = torch.reshape(is_first, is_first.shape + (1,) * (len(val.shape) - len(is_first.shape)))
                prev_state[key] = val * (1.0 - is_first_r) + init_state[key] * is_first_r
        prior = self.img_step(prev_state, prev_action)
        x = self._obs_out_layers(torch.cat([prior["deter"], embed], -1))
        stats = self._suff_stats_layer("obs", x)
        dist = self.get_dist(stats)
        stoch = dist.sample() if sample else dist.mode()
        return {"stoch": stoch, "deter": prior["deter"], **stats}, prior

    def observe(self, embed, action, is_first, state=None):
        posts, priors = [], []
        for t in range(embed.shape[1]):
            state, prior = self.obs_step(state, action[:, t], embed[:, t], is_first[:, t])
            posts.append(state)
            priors.append(prior)
        stack = lambda states: {k: torch.stack([s[k] for s in states], 1) for k in states[0]}
        return stack(posts), stack(priors)

    def get_feat(self, state):
        stoch = state["stoch"]
        if self._discrete:
            stoch = stoch.reshape(list(stoch.shape[:-2]) + [self._stoch * self._discrete])
        return torch.cat([stoch, state["deter"]], -1)
