import os, torch
torch.cuda.is_available()
os.environ["CUDA_VISIBLE_DEVICES"] = ""
try:
    x = torch.zeros(1, device="cuda")
    print("CVD='' written after is_available(): tensor made on", x.device, "count", torch.cuda.device_count())
except Exception as e:
    print("CVD='' written after is_available(): raised", type(e).__name__, str(e)[:120])
