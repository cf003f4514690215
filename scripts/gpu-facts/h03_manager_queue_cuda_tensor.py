import torch, multiprocessing as mp
if __name__ == "__main__":
    q = mp.get_context("spawn").Manager().Queue()
    try:
        q.put(torch.ones(10, device="cuda"))
        print("got", q.get(timeout=30).sum().item())
    except Exception as e:
        lines = [l for l in str(e).splitlines() if "Error" in l or "Unserializable" in l]
        print("raised", type(e).__name__, "|", " | ".join(l.strip()[:160] for l in lines[-2:]))
