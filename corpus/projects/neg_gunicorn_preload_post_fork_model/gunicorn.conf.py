import app as application

bind = "0.0.0.0:8000"
workers = 4
preload_app = True


def post_fork(server, worker):
    application.load_captioner()
