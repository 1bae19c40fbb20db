"""Writes seeds into a corpus folder under tests/fuzz/corpus: each seed a file named by the
SHA-1 of its bytes (as libFuzzer names what it adds), or by the name given."""

import hashlib
import os

HERE = os.path.dirname(os.path.abspath(__file__))


def corpus(name):
    """The folder of corpus `name`."""
    return os.path.join(HERE, "corpus", name)


def write_seeds(folder, seeds):
    """Writes `seeds` (bytes, or a dict of file name to bytes) into `folder`; prints the count."""
    os.makedirs(folder, exist_ok=True)
    named = seeds.items() if isinstance(seeds, dict) else ((hashlib.sha1(s).hexdigest(), s) for s in seeds)
    count = 0
    for name, data in named:
        with open(os.path.join(folder, name), "wb") as f:
            f.write(data)
        count += 1
    print(f"{count} seeds in {os.path.relpath(folder, os.path.dirname(os.path.dirname(HERE)))}")
