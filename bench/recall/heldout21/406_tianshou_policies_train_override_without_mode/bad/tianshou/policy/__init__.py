from tianshou.policy.base import BasePolicy
from tianshou.policy.ddpg import DDPGPolicy
from tianshou.policy.dqn import DQNPolicy
from tianshou.policy.sac import SACPolicy

__all__ = ["BasePolicy", "DDPGPolicy", "DQNPolicy", "SACPolicy"]
