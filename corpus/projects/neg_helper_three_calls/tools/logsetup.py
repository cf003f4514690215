import logging

from .banner import banner


def start_logging():
    logging.basicConfig(level=logging.INFO)
    logging.info(banner())
