"""Test script for BEAT audio-to-gesture models: generates gestures and scores them (FID, L1div, BeatAlign)."""
import os
import time

import numpy as np
import torch
import torch.distributed as dist
from loguru import logger

from dataloaders import data_tools
from models.motion_autoencoder import HalfEmbeddingNet
from utils import config, metric, other_tools


class BaseTrainer(object):
    def __init__(self, args):
        self.rank = dist.get_rank()
        self.checkpoint_path = args.root_path + args.out_root_path + "custom/" + args.name + "/"
        self.pose_dims = args.pose_dims
        self.pose_length = args.pose_length
        self.stride = args.stride
        self.pre_frames = args.pre_frames
        self.mean_pose = np.load(args.root_path + args.mean_pose_path + "bvh_mean.npy")
        self.std_pose = np.load(args.root_path + args.mean_pose_path + "bvh_std.npy")
        self.l1_calculator = metric.L1div()

        test_set = __import__(f"dataloaders.{args.dataset}", fromlist=["something"]).CustomDataset(args, "test")
        self.test_loader = torch.utils.data.DataLoader(test_set, batch_size=1, shuffle=False, num_workers=args.loader_workers)

        model_module = __import__(f"models.{args.model}", fromlist=["something"])
        self.model = getattr(model_module, args.g_name)(args)
        other_tools.load_checkpoints(self.model, args.root_path + args.test_ckpt, args.g_name)
        self.model = torch.nn.DataParallel(self.model, args.gpus).cuda()

        # pretrained pose autoencoder used as the feature extractor of the FID score
        self.eval_model = HalfEmbeddingNet(args)
        if self.rank == 0:
            other_tools.load_checkpoints(self.eval_model, args.root_path + args.e_path, args.e_name)
        self.eval_model = torch.nn.DataParallel(self.eval_model, args.gpus).cuda()
        logger.info(f"init {args.e_name} success")

    def test(self, epoch):
        results_save_path = self.checkpoint_path + f"/{epoch}/"
        start_time = time.time()
        self.model.eval()
        self.eval_model.eval()
        with torch.no_grad():
            os.makedirs(results_save_path, exist_ok=True)
            for its, batch_data in enumerate(self.test_loader):
                tar_pose = batch_data["pose"].cuda()
                in_audio = batch_data["audio"].cuda().reshape(1, -1)
                in_word = batch_data["word"].cuda()
                in_id = batch_data["id"].cuda()

                pre_pose = tar_pose.new_zeros((tar_pose.shape[0], tar_pose.shape[1], tar_pose.shape[2] + 1))
                pre_pose[:, : self.pre_frames, :-1] = tar_pose[:, : self.pre_frames]
                pre_pose[:, : self.pre_frames, -1] = 1
                out_dir_vec = self.model(pre_seq=pre_pose, in_audio=in_audio, in_text=in_word, in_id=in_id)

                # cut the generated and the reference sequences into windows the autoencoder was trained on
                num_divs = (tar_pose.shape[1] - self.pose_length) // self.stride + 1
                starts = [i * self.stride for i in range(num_divs)]
                cat_results = torch.cat([out_dir_vec[:, s : s + self.pose_length] for s in starts], 0)
                cat_targets = torch.cat([tar_pose[:, s : s + self.pose_length] for s in starts], 0)

                np_results = cat_results.cpu().numpy().reshape(-1, self.pose_dims) * self.std_pose + self.mean_pose
                self.l1_calculator.run(np_results)
                latent_out = self.eval_model(cat_results)
                latent_ori = self.eval_model(cat_targets)
                if its == 0:
                    latent_out_all = latent_out.cpu().numpy()
                    latent_ori_all = latent_ori.cpu().numpy()
                else:
                    latent_out_all = np.concatenate([latent_out_all, latent_out.cpu().numpy()], axis=0)
                    latent_ori_all = np.concatenate([latent_ori_all, latent_ori.cpu().numpy()], axis=0)

        logger.info(f"l1div score: {self.l1_calculator.avg()}")
        fid = data_tools.FIDCalculator.frechet_distance(latent_out_all, latent_ori_all)
        logger.info(f"fid score: {fid}")
        logger.info(f"total inference time: {int(time.time() - start_time)} s")


def main_worker(rank, world_size, args):
    dist.init_process_group("nccl", rank=rank, world_size=world_size)
    trainer = BaseTrainer(args)
    logger.info("Testing from ckpt ...")
    trainer.test(9999)


if __name__ == "__main__":
    os.environ["MASTER_ADDR"] = "localhost"
    os.environ["MASTER_PORT"] = "2222"
    main_worker(0, 1, config.parse_args())
