import torch
from torch.utils.data import DataLoader
from transformers import AutoModelForSequenceClassification, AutoTokenizer


def main(train_rows, model_name="cl-tohoku/bert-base-japanese-v3"):
    tokenizer = AutoTokenizer.from_pretrained(model_name)
    model = AutoModelForSequenceClassification.from_pretrained(model_name, num_labels=9).cuda()

    def collate_fn(rows):
        enc = tokenizer([r["text"] for r in rows], padding=True, truncation=True, max_length=512, return_tensors="pt")
        enc["labels"] = torch.tensor([r["label"] for r in rows])
        return enc

    loader = DataLoader(train_rows, collate_fn=collate_fn, batch_size=32, shuffle=True, num_workers=4)
    optimizer = torch.optim.AdamW(model.parameters(), lr=2e-5)
    for batch in loader:
        out = model(**{k: v.cuda() for k, v in batch.items()})
        out.loss.backward()
        optimizer.step()
        optimizer.zero_grad()


if __name__ == "__main__":
    main([{"text": "text", "label": 0}] * 64)
