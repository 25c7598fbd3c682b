import argparse

import torch
import torch.nn as nn

from models import ExecutionEngine, LstmBaseline


def set_mode(mode, models):
    assert mode in ["train", "eval"]
    for m in models:
        if m is None:
            continue
        if mode == "train":
            m.train()
        if mode == "eval":
            m.eval()


def check_accuracy(args, execution_engine, baseline_model, loader):
    set_mode("eval", [execution_engine, baseline_model])
    num_correct, num_samples = 0, 0
    with torch.no_grad():
        for questions, feats, answers, programs in loader:
            if args.model_type == "EE":
                scores = execution_engine(feats, programs)
            else:
                scores = baseline_model(questions, feats)
            num_correct += (scores.argmax(1) == answers).sum().item()
            num_samples += answers.size(0)
            if num_samples >= args.num_val_samples:
                break
    set_mode("eval", [execution_engine, baseline_model])
    return float(num_correct) / num_samples


def random_loader(n_batches=20, batch=8):
    return [(torch.randint(0, 100, (batch, 12)), torch.randn(batch, 1024, 14, 14),
             torch.randint(0, 32, (batch,)), torch.randint(0, 40, (batch, 4))) for _ in range(n_batches)]


def train_loop(args, train_loader, val_loader):
    execution_engine, baseline_model = None, None
    if args.model_type == "EE":
        execution_engine = ExecutionEngine()
        optimizer = torch.optim.Adam(execution_engine.parameters(), lr=args.learning_rate)
    else:
        baseline_model = LstmBaseline()
        optimizer = torch.optim.Adam(baseline_model.parameters(), lr=args.learning_rate)
    loss_fn = nn.CrossEntropyLoss()

    t, best_val_acc = 0, -1.0
    set_mode("train", [execution_engine, baseline_model])
    while t < args.num_iterations:
        for questions, feats, answers, programs in train_loader:
            t += 1
            optimizer.zero_grad()
            if args.model_type == "EE":
                scores = execution_engine(feats, programs)
            else:
                scores = baseline_model(questions, feats)
            loss = loss_fn(scores, answers)
            loss.backward()
            optimizer.step()

            if t % args.checkpoint_every == 0:
                train_acc = check_accuracy(args, execution_engine, baseline_model, train_loader)  # expect: TCK106
                val_acc = check_accuracy(args, execution_engine, baseline_model, val_loader)
                print(f"t={t} loss={loss.item():.4f} train acc={train_acc:.3f} val acc={val_acc:.3f}")
                if val_acc > best_val_acc:
                    best_val_acc = val_acc
                    model = execution_engine if execution_engine is not None else baseline_model
                    torch.save({"state": model.state_dict(), "t": t, "val_acc": val_acc}, args.checkpoint_path)
            if t == args.num_iterations:
                break


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--model_type", default="EE", choices=["EE", "LSTM"])
    parser.add_argument("--num_iterations", type=int, default=200)
    parser.add_argument("--checkpoint_every", type=int, default=20)
    parser.add_argument("--num_val_samples", type=int, default=64)
    parser.add_argument("--learning_rate", type=float, default=5e-4)
    parser.add_argument("--checkpoint_path", default="checkpoint.pt")
    args = parser.parse_args()
    train_loop(args, random_loader(), random_loader(4))
