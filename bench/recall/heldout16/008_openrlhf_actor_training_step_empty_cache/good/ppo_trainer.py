import torch
from torch.utils.data import DataLoader
from tqdm import tqdm


def masked_mean(values, mask):
    return (values * mask).sum() / mask.sum()


class PPOTrainer:
    def __init__(self, actor, actor_optim, replay_buffer, max_epochs=1, clip_eps=0.2, micro_batch_size=4):
        self.actor = actor
        self.actor_optim = actor_optim
        self.replay_buffer = replay_buffer
        self.max_epochs = max_epochs
        self.clip_eps = clip_eps
        self.micro_batch_size = micro_batch_size

    def ppo_train(self, global_steps=0):
        torch.cuda.empty_cache()
        dataloader = DataLoader(
            self.replay_buffer, batch_size=self.micro_batch_size, shuffle=True, drop_last=True
        )
        device = torch.cuda.current_device()
        status_list = []
        for epoch in range(self.max_epochs):
            for experience in tqdm(dataloader, desc=f"Train epoch [{epoch + 1}/{self.max_epochs}]"):
                experience = {k: v.to(device) for k, v in experience.items()}
                status = self.training_step(experience, global_steps)
                status_list.append(status)
        return {k: sum(s[k] for s in status_list) / len(status_list) for k in status_list[0]}

    def training_step(self, experience, global_steps):
        return self.training_step_actor(experience)

    def training_step_actor(self, experience):
        self.actor.train()
        logits = self.actor(experience["sequences"], attention_mask=experience["attention_mask"]).logits
        logits = logits[:, :-1]
        labels = experience["sequences"][:, 1:]
        log_probs = torch.gather(logits.log_softmax(-1), 2, labels.unsqueeze(-1)).squeeze(-1)
        ratio = (log_probs - experience["action_log_probs"]).exp()
        adv = experience["advantages"]
        surr = torch.min(ratio * adv, ratio.clamp(1 - self.clip_eps, 1 + self.clip_eps) * adv)
        policy_loss = -masked_mean(surr, experience["action_mask"])
        self.actor_optim.zero_grad()
        policy_loss.backward()
        torch.nn.utils.clip_grad_norm_(self.actor.parameters(), 1.0)
        self.actor_optim.step()
        return {"policy_loss": policy_loss.item()}
