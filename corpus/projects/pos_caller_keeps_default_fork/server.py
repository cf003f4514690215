# hazard: the caller keeps the default fork, and the child syncs a device the parent initialised
from snapshots import save_in_background


def serve():
    print("saving")
    save_in_background()


if __name__ == "__main__":
    serve()
