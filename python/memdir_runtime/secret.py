"""The owner's secret that every call to a shared server must carry: handed over in the environment (readable by the
owner only, never on the command line, which every account can read) and removed from it once read."""

import os

SECRET_ENV = "MEMDIR_SERVER_SECRET"


def take_secret(environ=None):
    environ = os.environ if environ is None else environ
    secret = environ.pop(SECRET_ENV, "")
    if not secret:
        raise SystemExit("memdir: %s is not set: a shared server never starts without its owner's secret" % SECRET_ENV)
    return secret


def bearer_matches(header, secret):
    """Whether an HTTP Authorization header carries the secret as its bearer token (compared in constant time)."""
    import hmac

    return hmac.compare_digest((header or "").encode("utf-8", "replace"), ("Bearer " + secret).encode())


UNAUTHORIZED = "this embedding server answers only the memdir processes of its owner"
