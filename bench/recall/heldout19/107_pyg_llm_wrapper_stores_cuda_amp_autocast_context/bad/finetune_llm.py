import torch

from llm import LLM

QUESTIONS = ["Which node has the highest degree?", "Is the graph connected?"]
ANSWERS = ["node 3", "yes"]


def main(epochs=3, lr=1e-5):
    model = LLM(model_name="TinyLlama/TinyLlama-1.1B-Chat-v0.1", num_params=1)
    optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=lr)
    model.train()
    for epoch in range(epochs):
        loss = model(QUESTIONS, ANSWERS)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print(f"epoch {epoch}: loss {loss.item():.4f}")
    model.eval()
    print(model.inference(QUESTIONS))


if __name__ == "__main__":
    main()
