"""pip install ./python: the package, carrying the shared library.  The library is
$CUTEC_LIB when set (an installed libcutec.so), else built here with the repository's
Makefile (make build/libcutec.so).  The library is called through ctypes; the hot path of
a kept call (python/cutec/_calls.py) is also compiled as the extension cutec._fast where this
Python's headers and a C compiler are present, and left out (the same path in Python) where
they are not.  The wheel holds a shared library, so it is tagged for this platform."""
import os
import shutil
import subprocess

from setuptools import Extension, setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

HERE = os.path.dirname(os.path.abspath(__file__))


class BuildWithLibrary(build_py):
    def run(self):
        super().run()
        lib = os.environ.get("CUTEC_LIB")
        if not lib:
            root = os.path.dirname(HERE)
            subprocess.check_call(["make", "-C", root, "-j2", "build/libcutec.so"])
            lib = os.path.join(root, "build", "libcutec.so")
        shutil.copyfile(os.path.realpath(lib), os.path.join(self.build_lib, "cutec", "libcutec.so"))


class PlatformDistribution(Distribution):
    def has_ext_modules(self):
        return True


FAST = Extension("cutec._fast", ["cutec/_fast.c"], optional=True,
                 include_dirs=[os.path.join(os.path.dirname(HERE), "include")],
                 extra_compile_args=["-std=c11", "-Wall", "-Wextra", "-Werror"])

setup(cmdclass={"build_py": BuildWithLibrary}, distclass=PlatformDistribution, ext_modules=[FAST])
