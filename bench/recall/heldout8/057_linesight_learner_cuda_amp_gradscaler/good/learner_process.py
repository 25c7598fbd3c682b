import torch

from iqn import Trainer


def learner_process_fn(online_network, target_network, buffer, config, save_dir):
    optimizer = torch.optim.RAdam(online_network.parameters(), lr=config.learning_rate, eps=config.adam_epsilon)
    scaler = torch.amp.GradScaler("cuda")
    trainer = Trainer(
        online_network=online_network,
        target_network=target_network,
        optimizer=optimizer,
        scaler=scaler,
        batch_size=config.batch_size,
    )
    for step in range(config.max_steps):
        loss, grad_norm = trainer.train_on_batch(buffer, do_learn=True)
        if step % config.log_every == 0:
            print(step, loss, grad_norm)
    torch.save(online_network.state_dict(), save_dir / "weights.torch")
