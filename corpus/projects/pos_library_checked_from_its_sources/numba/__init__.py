"""A package named like a modelled library, checked from its own sources: its public API keeps
the library's rows, so the fork after its CUDA use in its own tests is found."""
