"""privmetrics."""
