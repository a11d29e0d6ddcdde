"""cutec._fast (python/cutec/_fast.c) compiled for this Python into a scratch folder and loaded,
so that the tests run the C hot path also where the package comes from the tree (no build
step); None where this Python has no headers or there is no C compiler."""
import importlib.util
import os
import subprocess
import sysconfig
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def build():
    inc = sysconfig.get_paths()["include"]
    if not os.path.exists(os.path.join(inc, "Python.h")):
        return None
    so = os.path.join(tempfile.mkdtemp(), "_fast" + sysconfig.get_config_var("EXT_SUFFIX"))
    cmd = [os.environ.get("CC", "cc"), "-std=c11", "-O2", "-Wall", "-Wextra", "-Werror", "-shared",
           "-fPIC", "-I" + inc, "-I" + os.path.join(ROOT, "include"),
           os.path.join(ROOT, "python", "cutec", "_fast.c"), "-o", so]
    try:
        done = subprocess.run(cmd, capture_output=True, text=True)
    except OSError:  # no compiler
        return None
    if done.returncode != 0:
        raise AssertionError(f"cutec/_fast.c does not compile:\n{done.stderr}")
    spec = importlib.util.spec_from_file_location("cutec._fast", so)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod
