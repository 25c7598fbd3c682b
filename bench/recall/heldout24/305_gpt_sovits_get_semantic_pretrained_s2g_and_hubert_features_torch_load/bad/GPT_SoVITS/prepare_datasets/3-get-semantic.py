"""Dataset preparation step 3: turn the cached HuBERT features of every clip into semantic tokens
with the pretrained SoVITS generator. Configured through environment variables by the web UI."""
import os

inp_text = os.environ.get("inp_text")
i_part = os.environ.get("i_part")
all_parts = os.environ.get("all_parts")
if "_CUDA_VISIBLE_DEVICES" in os.environ:
    os.environ["CUDA_VISIBLE_DEVICES"] = os.environ["_CUDA_VISIBLE_DEVICES"]
opt_dir = os.environ.get("opt_dir")
pretrained_s2G = os.environ.get("pretrained_s2G")
s2config_path = os.environ.get("s2config_path")

if not os.path.exists(pretrained_s2G):
    raise FileNotFoundError(pretrained_s2G)
# the checkpoint size tells which generator version it holds
size = os.path.getsize(pretrained_s2G)
if size < 82978 * 1024:
    version = "v1"
elif size < 100 * 1024 * 1024:
    version = "v2"
elif size < 103520 * 1024:
    version = "v1"
elif size < 700 * 1024 * 1024:
    version = "v2"
else:
    version = "v3"

import sys
import traceback

import torch

is_half = eval(os.environ.get("is_half", "True")) and torch.cuda.is_available()
sys.path.append(os.getcwd())
import utils
from tools.my_utils import clean_path

if version != "v3":
    from module.models import SynthesizerTrn
else:
    from module.models import SynthesizerTrnV3 as SynthesizerTrn

hubert_dir = "%s/4-cnhubert" % opt_dir
semantic_path = "%s/6-name2semantic-%s.tsv" % (opt_dir, i_part)
if not os.path.exists(semantic_path):
    os.makedirs(opt_dir, exist_ok=True)
    device = "cuda" if torch.cuda.is_available() else "cpu"
    hps = utils.get_hparams_from_file(s2config_path)
    vq_model = SynthesizerTrn(
        hps.data.filter_length // 2 + 1,
        hps.train.segment_size // hps.data.hop_length,
        n_speakers=hps.data.n_speakers,
        version=version,
        **hps.model,
    )
    vq_model = vq_model.half().to(device) if is_half else vq_model.to(device)
    vq_model.eval()
    print(
        vq_model.load_state_dict(
            torch.load(pretrained_s2G, map_location="cpu")["weight"], strict=False  # expect: TCK401
        )
    )

    def name2go(wav_name, lines):
        hubert_path = "%s/%s.pt" % (hubert_dir, wav_name)
        if not os.path.exists(hubert_path):
            return
        ssl_content = torch.load(hubert_path, map_location="cpu")  # expect: TCK401
        ssl_content = ssl_content.half().to(device) if is_half else ssl_content.to(device)
        codes = vq_model.extract_latent(ssl_content)
        semantic = " ".join(str(i) for i in codes[0, 0, :].tolist())
        lines.append("%s\t%s" % (wav_name, semantic))

    with open(inp_text, "r", encoding="utf8") as f:
        lines = f.read().strip("\n").split("\n")

    lines1 = []
    for line in lines[int(i_part)::int(all_parts)]:
        try:
            wav_name, spk_name, language, text = line.split("|")
            wav_name = os.path.basename(clean_path(wav_name))
            name2go(wav_name, lines1)
        except Exception:
            print(line, traceback.format_exc())
    with open(semantic_path, "w", encoding="utf8") as f:
        f.write("\n".join(lines1))
