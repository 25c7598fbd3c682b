import abc


class BaseLearner(metaclass=abc.ABCMeta):
    """What every learning agent provides: acting, learning from a batch of experience, mode switches."""

    def __init__(self, observation_space, action_space):
        self.is_cuda = False
        self.training = False
        self.observation_space = observation_space
        self.action_space = action_space

    @abc.abstractmethod
    def act(self, *args, **kwargs):
        """Called at every step of an episode; must accept batches."""
        raise NotImplementedError

    @abc.abstractmethod
    def learn(self, *args, **kwargs):
        """One learning step."""
        raise NotImplementedError

    @abc.abstractmethod
    def cuda(self):
        raise NotImplementedError

    @abc.abstractmethod
    def train(self):
        raise NotImplementedError

    @abc.abstractmethod
    def eval(self):
        raise NotImplementedError

    def reset(self):
        """Called when an episode ends."""

    def save(self, save_dir):
        pass
