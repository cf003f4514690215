import multiprocessing as mp
def work(x):
    return x + 1
mp.set_start_method("spawn", force=True)
p = mp.Process(target=work, args=(1,))
p.start(); p.join()
print("exitcode", p.exitcode)
