def offpolicy_trainer(policy, train_collector, test_collector, max_epoch, step_per_epoch,
                      collect_per_step, episode_per_test, batch_size, stop_fn=None):
    """Alternate data collection and updates; evaluate the policy after every epoch."""
    best_reward = float("-inf")
    for epoch in range(1, max_epoch + 1):
        policy.train()
        for _ in range(step_per_epoch):
            train_collector.collect(n_step=collect_per_step)
            for _ in range(collect_per_step):
                policy.learn(train_collector.sample(batch_size))
        policy.eval()
        test_collector.reset_env()
        result = test_collector.collect(n_episode=episode_per_test)
        best_reward = max(best_reward, result["rew"])
        print(f"epoch {epoch}: test reward {result['rew']:.2f} (best {best_reward:.2f})")
        if stop_fn is not None and stop_fn(result["rew"]):
            break
    return best_reward
