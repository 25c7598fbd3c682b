from abc import ABC, abstractmethod


class BaseAgent(ABC):
    """API every agent exposes to the trainers."""

    @abstractmethod
    def act(self, observation):
        raise NotImplementedError

    @abstractmethod
    def episode_reset(self):
        raise NotImplementedError
