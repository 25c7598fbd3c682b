import argparse
import time

import numpy as np
from tensorboardX import SummaryWriter

from a2c_learner import BaseA2CLearner
from torchrl.episode_runner import EpisodeRunner, MultiEpisodeRunner
from torchrl.utils import get_gym_spaces, set_seeds


def train(args, agent: BaseA2CLearner, runner: MultiEpisodeRunner, logger: SummaryWriter):
    n_epochs = args.num_total_steps // args.rollout_steps // args.num_processes
    n_episodes = 0
    episode_reward = [0] * args.num_processes
    agent.train()
    for epoch in range(1, n_epochs + 1):
        rollout_start = time.time()
        history_list = runner.collect(agent, steps=args.rollout_steps, store=True)
        done_list = runner.is_done()
        rollout_duration = time.time() - rollout_start

        batch_history = EpisodeRunner.merge_histories(agent.observation_space, agent.action_space, *history_list)
        returns = np.concatenate([agent.compute_returns(*history) for history in history_list], axis=0)

        actor_loss, critic_loss, entropy_loss = agent.learn(*batch_history, returns)
        logger.add_scalar("actor loss", actor_loss, global_step=epoch)
        logger.add_scalar("critic loss", critic_loss, global_step=epoch)
        logger.add_scalar("entropy loss", entropy_loss, global_step=epoch)

        steps = 0
        for i, (history, done) in enumerate(zip(history_list, done_list)):
            steps += len(history[2])
            episode_reward[i] += history[2].sum()
            if done:
                n_episodes += 1
                logger.add_scalar("episode reward", episode_reward[i], global_step=n_episodes)
                episode_reward[i] = 0
                runner.reset(i)
                agent.reset()
        logger.add_scalar("steps per sec", steps / rollout_duration, global_step=epoch)


def main(args):
    set_seeds(args.seed)
    observation_space, action_space = get_gym_spaces(args.env)
    agent = BaseA2CLearner(observation_space, action_space, lr=args.actor_lr, gamma=args.gamma,
                           lmbda=args.lmbda, beta=args.beta)
    if args.cuda:
        agent.cuda()
    runner = MultiEpisodeRunner(args.env, max_steps=args.max_episode_steps, n_runners=args.num_processes)
    logger = SummaryWriter(log_dir=args.log_dir)
    train(args, agent, runner, logger)
    runner.stop()
    logger.close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--env", default="CartPole-v1")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--num-processes", dest="num_processes", type=int, default=16)
    parser.add_argument("--rollout-steps", dest="rollout_steps", type=int, default=5)
    parser.add_argument("--num-total-steps", dest="num_total_steps", type=int, default=int(1e6))
    parser.add_argument("--max-episode-steps", dest="max_episode_steps", type=int, default=500)
    parser.add_argument("--actor-lr", dest="actor_lr", type=float, default=3e-4)
    parser.add_argument("--gamma", type=float, default=0.99)
    parser.add_argument("--lmbda", type=float, default=1.0)
    parser.add_argument("--beta", type=float, default=1e-3)
    parser.add_argument("--cuda", action="store_true")
    parser.add_argument("--log-dir", dest="log_dir", default="log")
    main(parser.parse_args())
