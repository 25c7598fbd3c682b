from tianshou.trainer.offpolicy import offpolicy_trainer

__all__ = ["offpolicy_trainer"]
