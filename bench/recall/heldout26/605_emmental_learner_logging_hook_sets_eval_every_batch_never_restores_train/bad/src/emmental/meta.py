class Meta(object):
    """Process-wide configuration shared by the learner, the model and the loggers."""

    config = None
    log_path = None


def init_config(config):
    Meta.config = config
