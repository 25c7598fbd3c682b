import datasets

PROMPT = "Summarize this dialog:\n{dialog}\n---\nSummary:\n"


def get_preprocessed_samsum(tokenizer, split, max_len=512):
    data = datasets.load_dataset("samsum", split=split)

    def tokenize(sample):
        prompt = tokenizer.encode(tokenizer.bos_token + PROMPT.format(dialog=sample["dialogue"]),
                                  add_special_tokens=False)
        summary = tokenizer.encode(sample["summary"] + tokenizer.eos_token, add_special_tokens=False)
        ids = (prompt + summary)[:max_len]
        labels = ([-100] * len(prompt) + summary)[:max_len]
        pad = max_len - len(ids)
        return {
            "input_ids": ids + [0] * pad,
            "attention_mask": [1] * len(ids) + [0] * pad,
            "labels": labels + [-100] * pad,
        }

    return data.map(tokenize, remove_columns=list(data.features)).with_format("torch")
