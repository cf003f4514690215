import os, sys

def fork_child(fn):
    """Fork; run fn in the child; report what happened there."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        try:
            out = "ok: " + str(fn())
        except BaseException as e:  # noqa
            out = "raised: " + type(e).__name__ + ": " + str(e).splitlines()[0][:200]
        os.write(w, out.encode())
        os._exit(0)
    os.close(w)
    data = b""
    while True:
        chunk = os.read(r, 4096)
        if not chunk:
            break
        data += chunk
    _, status = os.waitpid(pid, 0)
    return data.decode() + f" [child status {status}]"
