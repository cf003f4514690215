"""gunicorn settings: on_starting warms the model cache in the master, before any worker is forked."""
from scoring.models import warm

bind = "0.0.0.0:8000"
workers = 4


def on_starting(server):  # expect: GPU001
    warm()
