"""A package named like a modelled library, checked from its own sources: its `rank()` is still
the library's rank, so a load under `if hvd.rank() == 0:` runs on one rank only (GPU009 silent)."""
