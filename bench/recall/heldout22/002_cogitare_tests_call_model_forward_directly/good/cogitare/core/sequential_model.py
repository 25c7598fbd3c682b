from cogitare.core.model import Model


class SequentialModel(Model):
    """Model that iterates over the timesteps of each batch (RNN-style)."""

    def forward_seq(self, data, hidden, timestep, seqlen):
        raise NotImplementedError
