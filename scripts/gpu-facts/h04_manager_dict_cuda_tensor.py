import torch, multiprocessing as mp
if __name__ == "__main__":
    m = mp.get_context("fork").Manager()  # started before CUDA
    d = m.dict()
    try:
        d["x"] = torch.ones(10, device="cuda")
        print("got", d["x"].sum().item())
    except Exception as e:
        lines = [l for l in str(e).splitlines() if "Error" in l or "Unserializable" in l]
        print("raised", type(e).__name__, "|", " | ".join(l.strip()[:160] for l in lines[-2:]))
