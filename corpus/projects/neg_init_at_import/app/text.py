"""Tokenising: plain Python, no CUDA."""


def tokenize(line):
    return line.lower().split()
