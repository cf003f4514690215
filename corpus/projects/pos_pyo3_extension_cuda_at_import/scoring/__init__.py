"""The scoring package of the mixed project."""
