from dataclasses import dataclass


@dataclass
class TrainConfig:
    model_name: str = "meta-llama/Llama-2-7b-hf"
    batch_size_training: int = 4
    gradient_accumulation_steps: int = 4
    num_epochs: int = 3
    lr: float = 1e-4
    gamma: float = 0.85
    use_fp16: bool = False
    run_validation: bool = True
    output_dir: str = "finetuned"
