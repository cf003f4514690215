import hashlib


def digest(blob):
    return hashlib.sha256(blob).hexdigest()
