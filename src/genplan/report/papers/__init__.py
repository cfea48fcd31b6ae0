"""One report module per paper."""
