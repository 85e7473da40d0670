"""What the scripts of tests/tfmd share: TFMD's messages compiled by
Debian's protoc for python3-protobuf, the tally of tests/cli, and (on the
path) tests/oracle's framing."""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "cli"))
sys.path.insert(0, os.path.join(HERE, "..", "oracle"))  # framing.py: TFRecord framing
from tally import check, finish  # noqa: E402,F401


def compile_protos(out, names, include=HERE):
    """protoc --python_out=out for each .proto of names (in include); out
    joins sys.path, so that the modules import."""
    os.makedirs(out, exist_ok=True)
    subprocess.run(["protoc", "--python_out=" + out, "-I", include] +
                   [os.path.join(include, n) for n in names], check=True)
    if out not in sys.path:
        sys.path.insert(0, out)
