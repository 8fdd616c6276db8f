"""Connections to the order database, with retries."""

import time


def retry_with_backoff(fn, attempts=5, base_delay=0.1):
    """Call fn until it succeeds, doubling the delay after each failure."""
    delay = base_delay
    for attempt in range(attempts):
        try:
            return fn()
        except ConnectionError:
            if attempt == attempts - 1:
                raise
            time.sleep(delay)
            delay *= 2


class OrderStore:
    """Reads and writes orders."""

    def __init__(self, dsn):
        self.dsn = dsn

    def connect_database(self):
        """Open the connection to the order database, retrying refused connections."""
        return retry_with_backoff(lambda: open_connection(self.dsn))


def open_connection(dsn):
    raise ConnectionError(dsn)
