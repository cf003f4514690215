# silent: the helper's only caller sets spawn before it starts the child (HAZARDS "On real projects")
import multiprocessing

from snapshots import save_in_background


def serve():
    multiprocessing.set_start_method("spawn", force=True)
    save_in_background()


if __name__ == "__main__":
    serve()
