"""Audio-driven talking video generation; `torchrun --nproc_per_node=N` runs one copy per GPU."""
import argparse
import json
import logging
import os
import sys

import numpy as np
import soundfile as sf
import torch
import torch.distributed as dist
from einops import rearrange

import wan
from src.audio_analysis.wav2vec2 import Wav2Vec2Model


def _parse_args():
    parser = argparse.ArgumentParser(description="Generate a talking video from an image or video and audio")
    parser.add_argument("--ckpt_dir", type=str, default="weights/Wan2.1-I2V-14B-480P")
    parser.add_argument("--input_json", type=str, default="examples/single_example_image.json")
    parser.add_argument("--audio_save_dir", type=str, default="save_audio")
    parser.add_argument("--audio_mode", type=str, default="localfile", choices=["localfile", "tts"])
    parser.add_argument("--frame_num", type=int, default=81)
    parser.add_argument("--sample_steps", type=int, default=40)
    parser.add_argument("--base_seed", type=int, default=42)
    parser.add_argument("--ulysses_size", type=int, default=1)
    parser.add_argument("--save_file", type=str, default=None)
    return parser.parse_args()


def _init_logging(rank):
    if rank == 0:
        logging.basicConfig(level=logging.INFO, format="[%(asctime)s] %(levelname)s: %(message)s", handlers=[logging.StreamHandler(stream=sys.stdout)])
    else:
        logging.basicConfig(level=logging.ERROR)


def audio_prepare_single(audio_path, sample_rate=16000):
    speech, sr = sf.read(audio_path)
    assert sr == sample_rate, f"expected {sample_rate} Hz audio"
    return speech.astype(np.float32)


def audio_prepare_multi(left_path, right_path, audio_type, sample_rate=16000):
    speech1 = audio_prepare_single(left_path, sample_rate)
    speech2 = audio_prepare_single(right_path, sample_rate)
    if audio_type == "add":
        speech1 = np.concatenate([speech1, np.zeros_like(speech2)])
        speech2 = np.concatenate([np.zeros(len(speech1) - len(speech2), dtype=np.float32), speech2])
    n = min(len(speech1), len(speech2))
    return speech1[:n], speech2[:n], speech1[:n] + speech2[:n]


def get_embedding(speech_array, audio_encoder, sr=16000, device="cpu"):
    video_length = len(speech_array) / sr * 25  # 25 fps
    audio_feature = torch.from_numpy(speech_array).float().to(device=device).unsqueeze(0)
    with torch.no_grad():
        hidden_states = audio_encoder(audio_feature, seq_len=int(video_length))
    audio_emb = torch.stack(hidden_states[1:], dim=1).squeeze(0)
    audio_emb = rearrange(audio_emb, "b s d -> s b d")
    return audio_emb.cpu().detach()


def generate(args):
    rank = int(os.getenv("RANK", 0))
    world_size = int(os.getenv("WORLD_SIZE", 1))
    local_rank = int(os.getenv("LOCAL_RANK", 0))
    _init_logging(rank)

    if world_size > 1:
        torch.cuda.set_device(local_rank)
        dist.init_process_group(backend="nccl", init_method="env://", rank=rank, world_size=world_size)

    if dist.is_initialized():
        base_seed = [args.base_seed] if rank == 0 else [None]
        dist.broadcast_object_list(base_seed, src=0)
        args.base_seed = base_seed[0]

    pipeline = wan.InfiniteTalkPipeline(
        config={"task": "infinitetalk-14B"},
        checkpoint_dir=args.ckpt_dir,
        device_id=local_rank,
        rank=rank,
        use_usp=args.ulysses_size > 1,
    )

    with open(args.input_json, "r", encoding="utf-8") as f:
        input_data = json.load(f)

    audio_encoder = Wav2Vec2Model().eval()
    args.audio_save_dir = os.path.join(args.audio_save_dir, input_data["cond_video"].split("/")[-1].split(".")[0])
    os.makedirs(args.audio_save_dir, exist_ok=True)

    conds_list = [[input_data["cond_video"]], [input_data["cond_audio"]["person1"]]]
    if len(input_data["cond_audio"]) == 2:
        conds_list.append([input_data["cond_audio"]["person2"]])

    generated_list = []
    for items in zip(*conds_list):
        input_clip = {"prompt": input_data["prompt"], "cond_video": items[0]}
        cond_audio = {}
        if args.audio_mode == "localfile":
            if len(input_data["cond_audio"]) == 2:
                speech1, speech2, sum_speech = audio_prepare_multi(items[1], items[2], input_data["audio_type"])
                audio_embedding_1 = get_embedding(speech1, audio_encoder)
                audio_embedding_2 = get_embedding(speech2, audio_encoder)
                emb1_path = os.path.join(args.audio_save_dir, "1.pt")
                emb2_path = os.path.join(args.audio_save_dir, "2.pt")
                sum_audio = os.path.join(args.audio_save_dir, "sum.wav")
                if rank == 0:
                    # one writer; the other ranks read the file after the barrier below
                    sf.write(sum_audio, sum_speech, 16000)
                    torch.save(audio_embedding_1, emb1_path)
                    torch.save(audio_embedding_2, emb2_path)
                cond_audio["person1"] = emb1_path
                cond_audio["person2"] = emb2_path
                input_clip["video_audio"] = sum_audio
            elif len(input_data["cond_audio"]) == 1:
                human_speech = audio_prepare_single(items[1])
                audio_embedding = get_embedding(human_speech, audio_encoder)
                emb_path = os.path.join(args.audio_save_dir, "1.pt")
                sum_audio = os.path.join(args.audio_save_dir, "sum.wav")
                if rank == 0:
                    sf.write(sum_audio, human_speech, 16000)
                    torch.save(audio_embedding, emb_path)
                cond_audio["person1"] = emb_path
                input_clip["video_audio"] = sum_audio
        input_clip["cond_audio"] = cond_audio
        if dist.is_initialized():
            # the pipeline loads the embeddings on every rank: wait until rank 0 has written them
            dist.barrier()

        video = pipeline.generate_infinitetalk(
            input_clip, frame_num=args.frame_num, sampling_steps=args.sample_steps, seed=args.base_seed
        )
        generated_list.append(video)

    if rank == 0:
        save_file = args.save_file or "infinitetalk_output"
        np.save(save_file + ".npy", torch.cat(generated_list, dim=1).numpy())
        logging.info(f"Saved generated video to {save_file}.npy")


if __name__ == "__main__":
    generate(_parse_args())
