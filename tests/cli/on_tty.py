#!/usr/bin/env python3
"""on_tty.py CMD [ARG...]: runs CMD with its standard input on a fresh
pseudo-terminal (standard output and error as given), so that tests can see
what a command does when no input is piped to it.  Exits with CMD's status."""
import os
import subprocess
import sys

master, slave = os.openpty()
try:
    rc = subprocess.run(sys.argv[1:], stdin=slave, check=False).returncode
finally:
    os.close(slave)
    os.close(master)
sys.exit(rc if rc >= 0 else 128 - rc)
