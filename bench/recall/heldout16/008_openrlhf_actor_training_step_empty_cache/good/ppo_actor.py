import torch
import torch.distributed as dist

from ppo_trainer import PPOTrainer


class ActorPPOTrainer(PPOTrainer):
    def __init__(self, *args, vllm_engines=None, **kwargs):
        super().__init__(*args, **kwargs)
        self.vllm_engines = vllm_engines

    def ppo_train(self, global_steps):
        dist.barrier()
        status = super().ppo_train(global_steps)
        torch.cuda.empty_cache()
        if self.vllm_engines is not None:
            self._broadcast_to_vllm()
        dist.barrier()
        return status

    def training_step(self, experience, global_steps):
        return self.training_step_actor(experience)

    def _broadcast_to_vllm(self):
        for name, param in self.actor.named_parameters():
            for engine in self.vllm_engines:
                engine.update_weight(name, param.data)
