"""gunicorn settings: the master only logs when it is ready; each worker builds its model on its
first request (scoring.models.ranker), after the fork."""
import logging

import scoring.models

bind = "0.0.0.0:8000"
workers = 4


def when_ready(server):
    logging.getLogger("gunicorn.error").info("ready: %d workers", workers)
